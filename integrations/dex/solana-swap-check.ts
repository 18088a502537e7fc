/**
 * The check a SOLANA swap transaction passes before the person's custodial key signs it. Jupiter builds the
 * transaction and its route runs through programs this service cannot decode, so it is judged by its effect, from a
 * simulation of the (not yet signed) bytes, and by what it can do later:
 * - it cannot outlive its blockhash (no durable nonce), the person's wallet pays its fee (at most the cap) and is the
 *   only signer still to sign;
 * - every instruction calls a program of the network's allow-list (NETWORKS.<id>.dex.programs), and an instruction of
 *   Jupiter's aggregator program is an ExactIn route whose threshold, encoded in it and enforced on chain, keeps the
 *   quote's minimum (a simulation shows only today's price; the threshold bounds the price at execution);
 * - the only changes to the person's accounts (the wallet and every token account they hold, of either token program)
 *   are the input going out, at least the quote's minimum coming in, and the fee; the wallet stays a plain System
 *   account, no account of theirs that existed is closed, and no token account gets another owner, a delegate (or a
 *   larger delegated amount) or a close authority.
 */

export const SYSTEM_PROGRAM = '11111111111111111111111111111111';

/** An account as the RPC answers it (null: it does not exist). */
export type AccountState = { lamports: bigint; owner: string; data: Uint8Array } | null;

/** One of the person's accounts: the wallet (mint null) or a token account of theirs, with its mint. */
export interface OwnAccount {
  address: string;
  /** null: the wallet itself; the wrapped SOL mint: SOL held as a token (counted with the wallet's SOL). */
  mint: string | null;
  before: AccountState;
  after: AccountState;
}

export interface SwapEffectInput {
  wallet: string;
  transaction: {
    feePayer: string;
    instructions: Array<{ program: string; data: Uint8Array }>;
    signers: Array<{ address: string; signed: boolean }>;
    durableNonce: boolean;
    feeLamports: bigint;
  };
  allowedPrograms: string[];
  /** Jupiter's aggregator program, whose route instructions encode their threshold (NETWORKS dex.aggregatorProgram). */
  aggregatorProgram?: string;
  /** What goes out: a token's mint, or null for SOL; at most `amount`. */
  source: { mint: string | null; amount: bigint };
  /** What comes in: a token's mint, or null for SOL; at least `minimum`. */
  target: { mint: string | null; minimum: bigint };
  /** The most the network may take in fees (SOLANA_SWAP_MAX_FEE_LAMPORTS). */
  maxFeeLamports: bigint;
  wrappedSolMint: string;
  accounts: OwnAccount[];
}

/**
 * Jupiter v6's ExactIn route instructions (Anchor discriminators, from its published IDL): route, route_with_token_ledger,
 * shared_accounts_route, shared_accounts_route_with_token_ledger. Each ends with quoted_out_amount (u64),
 * slippage_bps (u16) and platform_fee_bps (u8).
 */
const JUPITER_ROUTES = new Map([
  ['e517cb977ae3ad2a', 'route'],
  ['96564774a75d0e68', 'route_with_token_ledger'],
  ['c1209b3341d69c81', 'shared_accounts_route'],
  ['e6798f50779f6aaa', 'shared_accounts_route_with_token_ledger'],
]);

/** The least a Jupiter route instruction lets the swap give: its quoted output less its slippage and platform fee. */
export function jupiterRouteMinimum(data: Uint8Array): bigint | undefined {
  const bytes = Buffer.from(data);
  if (bytes.length < 8 + 4 + 11 || !JUPITER_ROUTES.has(bytes.subarray(0, 8).toString('hex'))) return undefined;
  const quoted = bytes.readBigUInt64LE(bytes.length - 11);
  const slippage = BigInt(bytes.readUInt16LE(bytes.length - 3));
  const fee = BigInt(bytes[bytes.length - 1]!);
  if (slippage > 10_000n) return 0n;
  return (((quoted * (10_000n - slippage)) / 10_000n) * (10_000n - fee)) / 10_000n;
}

/** An SPL token account's fields (the first 165 bytes, the same in both token programs). */
interface TokenAccount {
  owner: Uint8Array;
  amount: bigint;
  /** COption<Pubkey> as stored: tag (4 bytes) and key. */
  delegate: string;
  delegatedAmount: bigint;
  closeAuthority: string;
}

const tokenAccountOf = (state: AccountState): TokenAccount | undefined => {
  if (!state || state.data.length < 165) return undefined;
  const data = Buffer.from(state.data);
  return {
    owner: data.subarray(32, 64),
    amount: data.readBigUInt64LE(64),
    delegate: data.subarray(72, 108).toString('hex'),
    delegatedAmount: data.readBigUInt64LE(121),
    closeAuthority: data.subarray(129, 165).toString('hex'),
  };
};
const amountOf = (state: AccountState) => tokenAccountOf(state)?.amount ?? 0n;
const NONE = '00'.repeat(36);

/** What the transaction is and can do, apart from its effect on balances. */
function transactionRefusal(input: SwapEffectInput): string | null {
  const tx = input.transaction;
  if (tx.durableNonce) return 'it uses a durable nonce: it could land long after the swap was given up';
  if (tx.feePayer !== input.wallet) return `its fee payer is ${tx.feePayer}, not the person's wallet`;
  const unsigned = tx.signers.filter((s) => !s.signed).map((s) => s.address);
  if (unsigned.length !== 1 || unsigned[0] !== input.wallet)
    return `it waits for signatures other than the wallet's alone: ${unsigned.join(', ') || 'none'}`;
  if (tx.feeLamports > input.maxFeeLamports)
    return `its fees (${tx.feeLamports} lamports) are above SOLANA_SWAP_MAX_FEE_LAMPORTS (${input.maxFeeLamports})`;
  const foreign = [...new Set(tx.instructions.map((i) => i.program))].filter((p) => !input.allowedPrograms.includes(p));
  if (foreign.length > 0) return `it calls a program not on the network's allow-list: ${foreign.join(', ')}`;
  for (const instruction of tx.instructions) {
    if (instruction.program !== input.aggregatorProgram) continue;
    const minimum = jupiterRouteMinimum(instruction.data);
    if (minimum === undefined) return "it calls Jupiter's program with an instruction other than an ExactIn route";
    if (minimum < input.target.minimum)
      return `its route lets the swap give as little as ${minimum} at execution, below the quote's minimum of ${input.target.minimum}`;
  }
  return null;
}

/**
 * Why this transaction must not be signed, or null when its effect is the swap's and nothing more. `walletKey` is the
 * wallet's 32-byte public key (to compare with token accounts' owner field).
 */
export function swapEffectRefusal(input: SwapEffectInput, walletKey: Uint8Array): string | null {
  const refused = transactionRefusal(input);
  if (refused) return refused;
  const fee = input.transaction.feeLamports;
  let solDelta = 0n;
  const tokenDelta = new Map<string, bigint>();
  for (const account of input.accounts) {
    if (account.before && !account.after) return `it would close the account ${account.address}`;
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
      if (after.delegate !== (before?.delegate ?? NONE) || after.delegatedAmount > (before?.delegatedAmount ?? 0n))
        return `it would let another key spend from the token account ${account.address} (a delegate)`;
      if (after.closeAuthority !== (before?.closeAuthority ?? NONE))
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
  // The wallet's SOL (with its token accounts' rent and wrapped SOL) moves by the swap's SOL side and the exact fee.
  const solFloor =
    input.source.mint === null
      ? -(input.source.amount + fee)
      : input.target.mint === null
        ? input.target.minimum - fee
        : -fee;
  if (solDelta < solFloor)
    return input.target.mint === null
      ? `it would give ${solDelta} lamports net, less than the quote's minimum of ${input.target.minimum} less the fee of ${fee}`
      : `it would take ${-solDelta} lamports, more than ${-solFloor} (the swap's SOL and the fee of ${fee})`;
  return null;
}
