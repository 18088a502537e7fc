/**
 * The check a SOLANA swap transaction passes before the person's custodial key signs it. Jupiter builds the
 * transaction and its route runs through programs this service cannot decode, so it is judged by its effect, from a
 * simulation of the signed bytes: the person's wallet pays the fee, every instruction calls a program of the
 * network's allow-list (NETWORKS.<id>.dex.programs), and the only changes to the person's accounts are the input going
 * out and at least the quote's minimum of the output coming in (network fees aside, within a cap). Their accounts stay
 * theirs: the wallet stays a plain System account, every token account keeps its owner, no delegate or close authority
 * appears.
 */

export const SYSTEM_PROGRAM = '11111111111111111111111111111111';

/** An account as the RPC answers it (null: it does not exist). */
export type AccountState = { lamports: bigint; owner: string; data: Uint8Array } | null;

/** One of the person's accounts: the wallet (mint null) or its associated token account of a mint. */
export interface OwnAccount {
  address: string;
  /** null: the wallet itself; the wrapped SOL mint: SOL held as a token (counted with the wallet's SOL). */
  mint: string | null;
  before: AccountState;
  after: AccountState;
}

export interface SwapEffectInput {
  wallet: string;
  /** The transaction's fee payer (its first account). */
  feePayer: string;
  /** The programs its instructions call. */
  programs: string[];
  allowedPrograms: string[];
  /** What goes out: a token's mint, or null for SOL; at most `amount`. */
  source: { mint: string | null; amount: bigint };
  /** What comes in: a token's mint, or null for SOL; at least `minimum`. */
  target: { mint: string | null; minimum: bigint };
  /** The most SOL the network may take beyond the swap (signature and priority fees). */
  maxFeeLamports: bigint;
  wrappedSolMint: string;
  accounts: OwnAccount[];
}

/** An SPL token account's fields (the 165-byte layout of the Token program). */
interface TokenAccount {
  mint: string;
  owner: Uint8Array;
  amount: bigint;
  /** COption<Pubkey> as stored: tag (4 bytes) and key. */
  delegate: string;
  closeAuthority: string;
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

const tokenAccountOf = (state: AccountState): TokenAccount | undefined => {
  if (!state || state.data.length < 165) return undefined;
  const data = Buffer.from(state.data);
  return {
    mint: hex(data.subarray(0, 32)),
    owner: data.subarray(32, 64),
    amount: data.readBigUInt64LE(64),
    delegate: hex(data.subarray(72, 108)),
    closeAuthority: hex(data.subarray(129, 165)),
  };
};

/** The delta of a token amount across a transaction (a missing account holds nothing). */
const amountOf = (state: AccountState) => tokenAccountOf(state)?.amount ?? 0n;

/**
 * Why this transaction must not be signed, or null when its effect is the swap's and nothing more. `walletKey` is the
 * wallet's 32-byte public key (to compare with token accounts' owner field).
 */
export function swapEffectRefusal(input: SwapEffectInput, walletKey: Uint8Array): string | null {
  if (input.feePayer !== input.wallet) return `its fee payer is ${input.feePayer}, not the person's wallet`;
  const foreign = [...new Set(input.programs)].filter((p) => !input.allowedPrograms.includes(p));
  if (foreign.length > 0) return `it calls a program not on the network's allow-list: ${foreign.join(', ')}`;

  let solDelta = 0n;
  const tokenDelta = new Map<string, bigint>();
  for (const account of input.accounts) {
    solDelta += (account.after?.lamports ?? 0n) - (account.before?.lamports ?? 0n);
    if (account.mint === null) {
      if (account.after && (account.after.owner !== SYSTEM_PROGRAM || account.after.data.length > 0))
        return "it would hand the person's wallet to another program";
      continue;
    }
    const after = tokenAccountOf(account.after);
    if (account.after && !after) return `it would turn the token account ${account.address} into something else`;
    if (after) {
      const before = tokenAccountOf(account.before);
      if (Buffer.compare(Buffer.from(after.owner), Buffer.from(walletKey)) !== 0)
        return `it would give the token account ${account.address} another owner`;
      const none = '00'.repeat(36);
      if (after.delegate !== (before?.delegate ?? none))
        return `it would let another key spend from the token account ${account.address} (a delegate)`;
      if (after.closeAuthority !== (before?.closeAuthority ?? none))
        return `it would give the token account ${account.address} another close authority`;
    }
    // Wrapped SOL counts as SOL (its lamports, above); other tokens by their amount.
    if (account.mint !== input.wrappedSolMint)
      tokenDelta.set(
        account.mint,
        (tokenDelta.get(account.mint) ?? 0n) + amountOf(account.after) - amountOf(account.before),
      );
  }

  for (const [mint, delta] of tokenDelta) {
    if (mint === input.source.mint) {
      if (delta < -input.source.amount)
        return `it would take ${-delta} of ${mint}, more than the swap's input of ${input.source.amount}`;
    } else if (mint === input.target.mint) {
      if (delta < input.target.minimum)
        return `it would give ${delta} of ${mint}, less than the quote's minimum of ${input.target.minimum}`;
    } else if (delta < 0n) return `it would take ${-delta} of ${mint}, which the swap does not trade`;
  }
  if (input.target.mint !== null && !tokenDelta.has(input.target.mint))
    return `it would give none of ${input.target.mint}, the swap's output`;
  const solFloor =
    input.source.mint === null
      ? -(input.source.amount + input.maxFeeLamports)
      : input.target.mint === null
        ? input.target.minimum - input.maxFeeLamports
        : -input.maxFeeLamports;
  if (solDelta < solFloor)
    return input.target.mint === null
      ? `it would give ${solDelta} lamports net, less than the quote's minimum of ${input.target.minimum} less fees of at most ${input.maxFeeLamports}`
      : `it would take ${-solDelta} lamports, more than ${-solFloor} (the swap's SOL and fees of at most ${input.maxFeeLamports})`;
  return null;
}
