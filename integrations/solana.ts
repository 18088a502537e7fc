import type {
  Address,
  Base64EncodedWireTransaction,
  Instruction,
  RpcTransport,
  createSolanaRpcFromTransport,
} from '@solana/kit';
import type { SolanaNetwork } from '../platform/networks';

/**
 * Solana's kit and its programs' clients, loaded by the first call that needs them: a worker or an api that serves no
 * Solana network never loads them (about 4 MiB of the worker at rest, issue 52; bench/NOTES.md).
 */
let loading: Promise<SolanaLibraries> | undefined;
type SolanaLibraries = {
  kit: typeof import('@solana/kit');
  system: typeof import('@solana-program/system');
  memo: typeof import('@solana-program/memo');
  token: typeof import('@solana-program/token');
};
/** One cluster's JSON-RPC client. */
export type SolanaRpc = ReturnType<typeof createSolanaRpcFromTransport<RpcTransport>>;
export const solanaLibraries = (): Promise<SolanaLibraries> =>
  (loading ??= Promise.all([
    import('@solana/kit'),
    import('@solana-program/system'),
    import('@solana-program/memo'),
    import('@solana-program/token'),
  ]).then(
    ([kit, system, memo, token]) => ({ kit, system, memo, token }),
    (error: unknown) => {
      loading = undefined; // a load that failed (a file limit reached, say) is tried again by the next call
      throw error;
    },
  ));

/** The SPL Memo program (v3), deployed on every cluster: each transfer carries its transfer id, so its signature is unique. */
export const MEMO_PROGRAM_ADDRESS = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr' as Address;
export const SOL_DECIMALS = 9;
/** The base fee per signature on Solana clusters; transfers here carry one signature and no priority fee. */
export const LAMPORTS_PER_SIGNATURE = 5000n;

/** A transfer signed once by the user's Solana key; the same bytes are sent on every retry. */
export interface SignedSolanaTransfer {
  /** The wire transaction, base64. */
  wire: string;
  signature: string;
  /** The transaction cannot land once the cluster's block height passes this. */
  lastValidBlockHeight: string;
  /** The most SOL the transaction can take from the sender: the amount (for SOL), the fee, a new recipient token account's rent. */
  lamportsCost: string;
}

export type SolanaTransferOutcome =
  | { landed: true; success: boolean; signature: string; fee: string; slot: string; error?: string }
  | { landed: false; signature: string; error: string };

export type RecipientKind = 'unused' | 'wallet' | 'token-account' | 'program';

/** A transaction error as JSON, e.g. {"InstructionError":[1,{"Custom":1}]} (the RPC client reads numbers as bigint). */
const errorText = (err: unknown): string =>
  JSON.stringify(err, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v));

/** One Solana cluster over its standard JSON-RPC (a real cluster in production, the LiteSVM node of dev/solana-local.ts here). */
export class SolanaChain {
  private client?: Promise<SolanaRpc>;

  /** `timeoutMs`: one JSON-RPC call's limit (CHAIN_RPC_TIMEOUT_MS; the kit's transport has none). */
  constructor(
    readonly network: SolanaNetwork,
    private readonly timeoutMs = 15_000,
  ) {}

  /** The cluster's JSON-RPC client, made at the first call (the kit loads then). */
  rpc(): Promise<SolanaRpc> {
    if (this.client) return this.client;
    const client = solanaLibraries().then(({ kit }) => {
      const transport = kit.createDefaultRpcTransport({ url: this.network.rpcUrl });
      const limited: RpcTransport = (config) =>
        transport({
          ...config,
          signal: config.signal
            ? AbortSignal.any([config.signal, AbortSignal.timeout(this.timeoutMs)])
            : AbortSignal.timeout(this.timeoutMs),
        });
      return kit.createSolanaRpcFromTransport(limited);
    });
    // A client that could not be made (the kit failed to load) is made again by the next call.
    client.catch(() => {
      if (this.client === client) this.client = undefined;
    });
    this.client = client;
    return this.client;
  }

  /** A configured token (the network's settings are checked when they are read: platform/networks.ts). */
  token(symbol: string): { mint: Address; decimals: number } | undefined {
    const token = this.network.tokens?.[symbol];
    return token ? { mint: token.mint as Address, decimals: token.decimals } : undefined;
  }

  async balance(owner: string): Promise<bigint> {
    const { kit } = await solanaLibraries();
    return (await (await this.rpc()).getBalance(kit.address(owner), { commitment: 'confirmed' }).send()).value;
  }

  async tokenAccountOf(owner: string, mint: Address | string): Promise<Address> {
    const { kit, token } = await solanaLibraries();
    return (
      await token.findAssociatedTokenPda({
        owner: kit.address(owner),
        mint: kit.address(mint),
        tokenProgram: token.TOKEN_PROGRAM_ADDRESS,
      })
    )[0];
  }

  /** The owner's balance of a token in its associated token account (0 when it has none). */
  async tokenBalance(owner: string, symbol: string): Promise<bigint> {
    const token = this.token(symbol);
    if (!token) return 0n;
    const account = await this.tokenAccountOf(owner, token.mint);
    const rpc = await this.rpc();
    if (!(await rpc.getAccountInfo(account, { encoding: 'base64', commitment: 'confirmed' }).send()).value) return 0n;
    return BigInt((await rpc.getTokenAccountBalance(account, { commitment: 'confirmed' }).send()).value.amount);
  }

  /** What an address is on chain: sending tokens to a token account or a program would strand them. */
  async recipientKind(to: string): Promise<RecipientKind> {
    const { kit, token } = await solanaLibraries();
    const rpc = await this.rpc();
    const info = (await rpc.getAccountInfo(kit.address(to), { encoding: 'base64', commitment: 'confirmed' }).send())
      .value;
    if (!info) return 'unused';
    if (info.executable) return 'program';
    return info.owner === token.TOKEN_PROGRAM_ADDRESS ? 'token-account' : 'wallet';
  }

  /** The most SOL a transfer can take from the sender: the fee, the amount (SOL) and a new recipient token account's rent. */
  async costOf(input: { to: string; symbol?: string; amount: bigint }): Promise<bigint> {
    const token = input.symbol ? this.token(input.symbol) : undefined;
    if (!token) return LAMPORTS_PER_SIGNATURE + input.amount;
    const destination = await this.tokenAccountOf(input.to, token.mint);
    const rpc = await this.rpc();
    if ((await rpc.getAccountInfo(destination, { encoding: 'base64', commitment: 'confirmed' }).send()).value)
      return LAMPORTS_PER_SIGNATURE;
    const { token: tokenProgram } = await solanaLibraries();
    return (
      LAMPORTS_PER_SIGNATURE + (await rpc.getMinimumBalanceForRentExemption(BigInt(tokenProgram.getTokenSize())).send())
    );
  }

  /** Builds and signs a transfer of the coin (no symbol) or an SPL token, with the transfer id as its memo. */
  async signTransfer(input: {
    seed: Uint8Array;
    to: string;
    symbol?: string;
    amount: bigint;
    memo: string;
  }): Promise<SignedSolanaTransfer> {
    const { kit, system, memo, token: tokenProgram } = await solanaLibraries();
    const signer = await kit.createKeyPairSignerFromPrivateKeyBytes(input.seed);
    const to = kit.address(input.to);
    const instructions: Instruction[] = [
      memo.getAddMemoInstruction({ memo: input.memo }, { programAddress: MEMO_PROGRAM_ADDRESS }),
    ];
    const lamportsCost = await this.costOf(input);
    const token = input.symbol ? this.token(input.symbol) : undefined;
    if (!token) {
      instructions.push(system.getTransferSolInstruction({ source: signer, destination: to, amount: input.amount }));
    } else {
      const source = await this.tokenAccountOf(signer.address, token.mint);
      const destination = await this.tokenAccountOf(to, token.mint);
      instructions.push(
        tokenProgram.getCreateAssociatedTokenIdempotentInstruction({
          payer: signer,
          owner: to,
          mint: token.mint,
          ata: destination,
        }),
        tokenProgram.getTransferCheckedInstruction({
          source,
          mint: token.mint,
          destination,
          authority: signer,
          amount: input.amount,
          decimals: token.decimals,
        }),
      );
    }
    const { value: lifetime } = await (await this.rpc()).getLatestBlockhash({ commitment: 'confirmed' }).send();
    const signed = await kit.pipe(
      kit.createTransactionMessage({ version: 0 }),
      (m) => kit.setTransactionMessageFeePayerSigner(signer, m),
      (m) => kit.setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
      (m) => kit.appendTransactionMessageInstructions(instructions, m),
      (m) => kit.signTransactionMessageWithSigners(m),
    );
    return {
      wire: kit.getBase64EncodedWireTransaction(signed),
      signature: kit.getSignatureFromTransaction(signed),
      lastValidBlockHeight: lifetime.lastValidBlockHeight.toString(),
      lamportsCost: lamportsCost.toString(),
    };
  }

  /** These accounts as they are now, and the slot they were read at (null: none, or left with no lamports). */
  async accountStates(addresses: string[]): Promise<{ slot: bigint; states: AccountState[] }> {
    const { kit } = await solanaLibraries();
    const rpc = await this.rpc();
    const slot = await rpc.getSlot({ commitment: 'confirmed' }).send();
    const states = await Promise.all(
      addresses.map(async (a) => {
        const info = (
          await rpc
            .getAccountInfo(kit.address(a), { encoding: 'base64', commitment: 'confirmed', minContextSlot: slot })
            .send()
        ).value;
        return stateOf(info);
      }),
    );
    return { slot, states };
  }

  /**
   * Every account a transaction can touch: those it names, and those it loads from address lookup tables (a table's
   * addresses start at byte 56 of its account, 32 bytes each). Only these can change when it runs.
   */
  async referencedAccounts(tx: Pick<ReadTransaction, 'staticAccounts' | 'lookups'>): Promise<Set<string>> {
    const referenced = new Set(tx.staticAccounts);
    if (!tx.lookups.length) return referenced;
    const { kit } = await solanaLibraries();
    const rpc = await this.rpc();
    for (const { table, indexes } of tx.lookups) {
      const info = (
        await rpc.getAccountInfo(kit.address(table), { encoding: 'base64', commitment: 'confirmed' }).send()
      ).value;
      if (!info) throw new Error(`the address lookup table ${table} does not exist`);
      const data = Buffer.from(info.data[0], 'base64');
      for (const index of indexes) {
        const at = 56 + index * 32;
        if (at + 32 > data.length) throw new Error(`the address lookup table ${table} has no entry ${index}`);
        referenced.add(kit.getBase58Decoder().decode(data.subarray(at, at + 32)));
      }
    }
    return referenced;
  }

  /** Every SPL token account (Token and Token-2022) the owner holds, with its mint. */
  async tokenAccountsOwnedBy(owner: string): Promise<Array<{ address: string; mint: string }>> {
    const { kit, token } = await solanaLibraries();
    const rpc = await this.rpc();
    const found: Array<{ address: string; mint: string }> = [];
    for (const programId of [token.TOKEN_PROGRAM_ADDRESS, TOKEN_2022_PROGRAM]) {
      const { value } = await rpc
        .getTokenAccountsByOwner(
          kit.address(owner),
          { programId: kit.address(programId) },
          { encoding: 'base64', commitment: 'confirmed' },
        )
        .send();
      for (const { pubkey, account } of value) {
        const data = Buffer.from(account.data[0], 'base64');
        found.push({ address: pubkey, mint: kit.getBase58Decoder().decode(data.subarray(0, 32)) });
      }
    }
    return found;
  }

  /**
   * Simulates a transaction (signatures not checked: it may not be signed yet) no earlier than `minContextSlot`, and
   * answers its error, or the named accounts' state after it as the cluster would leave them (an account left with no
   * lamports is gone: null).
   */
  async simulateWithAccounts(
    wire: string,
    addresses: string[],
    minContextSlot: bigint,
  ): Promise<{ err: string; accounts?: undefined } | { err: null; accounts: AccountState[] }> {
    const { kit } = await solanaLibraries();
    const { value } = await (
      await this.rpc()
    )
      .simulateTransaction(wire as Base64EncodedWireTransaction, {
        encoding: 'base64',
        commitment: 'confirmed',
        sigVerify: false,
        replaceRecentBlockhash: false,
        minContextSlot,
        accounts: { addresses: addresses.map((a) => kit.address(a)), encoding: 'base64' },
      })
      .send();
    if (value.err) return { err: errorText(value.err) };
    const accounts = (value.accounts ?? []).map(stateOf);
    if (accounts.length !== addresses.length) throw new Error('the simulation answered another number of accounts');
    return { err: null, accounts };
  }

  /**
   * What a transaction that landed did to an owner's holdings, from its meta: the lamports of the given accounts
   * (the wallet and its token accounts) net of nothing, the fee, and each mint's amount in token accounts the owner
   * holds. Null when the cluster shows no balances for it.
   */
  async balanceChanges(
    signature: string,
    owner: string,
    accounts: string[],
  ): Promise<{ fee: bigint; lamports: bigint; tokens: Map<string, bigint> } | null> {
    const { kit } = await solanaLibraries();
    const landed = await (
      await this.rpc()
    )
      .getTransaction(kit.signature(signature), {
        encoding: 'json',
        maxSupportedTransactionVersion: 0,
        commitment: 'confirmed',
      })
      .send();
    const meta = landed?.meta;
    if (!landed || !meta?.preBalances || !meta.postBalances) return null;
    const keys = [
      ...landed.transaction.message.accountKeys,
      ...(meta.loadedAddresses?.writable ?? []),
      ...(meta.loadedAddresses?.readonly ?? []),
    ].map(String);
    let lamports = 0n;
    keys.forEach((key, i) => {
      if (accounts.includes(key)) lamports += BigInt(meta.postBalances[i]!) - BigInt(meta.preBalances[i]!);
    });
    const tokens = new Map<string, bigint>();
    const add = (list: typeof meta.postTokenBalances, sign: bigint) => {
      for (const b of list ?? [])
        if (b.owner === owner) tokens.set(b.mint, (tokens.get(b.mint) ?? 0n) + sign * BigInt(b.uiTokenAmount.amount));
    };
    add(meta.postTokenBalances, 1n);
    add(meta.preTokenBalances, -1n);
    return { fee: BigInt(meta.fee), lamports, tokens };
  }

  /** Which of these signatures the cluster has a status for: landed, so already reflected in balances. */
  async landed(signatures: string[]): Promise<Set<string>> {
    const found = new Set<string>();
    if (!signatures.length) return found;
    const { kit } = await solanaLibraries();
    const rpc = await this.rpc();
    for (let i = 0; i < signatures.length; i += 256) {
      const batch = signatures.slice(i, i + 256);
      const { value } = await rpc
        .getSignatureStatuses(
          batch.map((s) => kit.signature(s)),
          { searchTransactionHistory: true },
        )
        .send();
      value.forEach((status, j) => {
        if (status) found.add(batch[j]!);
      });
    }
    return found;
  }

  /** Runs the transaction against current state without sending it: its error, or null when it would succeed. */
  async simulate(wire: string): Promise<string | null> {
    const { value } = await (
      await this.rpc()
    )
      .simulateTransaction(wire as Base64EncodedWireTransaction, { encoding: 'base64', commitment: 'confirmed' })
      .send();
    return value.err ? errorText(value.err) : null;
  }

  /**
   * Sends the signed bytes until the transaction is finalized or can no longer land. Resending the same bytes is
   * safe (a signature executes at most once); a transaction with no status after its blockhash expired never will
   * land, so that outcome is final too. RPC failures throw, for the caller to retry.
   */
  /**
   * Where a transaction that landed at `confirmed` stands: `finalized` (rooted, cannot be rolled back), still
   * `pending`, or `dropped` (the chain no longer shows it, e.g. its fork was abandoned: send the same bytes again
   * while its blockhash is valid).
   */
  async finalityOf(signature: string): Promise<SolanaFinality> {
    const { kit } = await solanaLibraries();
    const [status] = (
      await (
        await this.rpc()
      )
        .getSignatureStatuses([kit.signature(signature)], { searchTransactionHistory: true })
        .send()
    ).value;
    if (!status) return 'dropped';
    return status.confirmationStatus === 'finalized' ? 'finalized' : 'pending';
  }

  async sendUntilFinal(
    transfer: Pick<SignedSolanaTransfer, 'wire' | 'signature' | 'lastValidBlockHeight'>,
    options: { pollMs?: number; resendMs?: number; onPoll?: () => void } = {},
  ): Promise<SolanaTransferOutcome> {
    const { kit } = await solanaLibraries();
    const rpc = await this.rpc();
    const signature = kit.signature(transfer.signature);
    const lastValid = BigInt(transfer.lastValidBlockHeight);
    const pollMs = options.pollMs ?? 500;
    let lastSent = 0;
    let expiredOnce = false;
    for (;;) {
      options.onPoll?.();
      const [status] = (await rpc.getSignatureStatuses([signature], { searchTransactionHistory: true }).send()).value;
      // Included at `confirmed` commitment (a supermajority voted for its block); `finalityOf` then waits for `finalized`.
      if (status?.confirmationStatus === 'confirmed' || status?.confirmationStatus === 'finalized') {
        const landed = await rpc
          .getTransaction(signature, { encoding: 'base64', maxSupportedTransactionVersion: 0, commitment: 'confirmed' })
          .send();
        const fee = landed?.meta?.fee ?? LAMPORTS_PER_SIGNATURE;
        const slot = status.slot.toString();
        return status.err
          ? {
              landed: true,
              success: false,
              signature: transfer.signature,
              fee: fee.toString(),
              slot,
              error: `the transaction failed on chain: ${errorText(status.err)}`,
            }
          : { landed: true, success: true, signature: transfer.signature, fee: fee.toString(), slot };
      }
      if (!status) {
        const height = await rpc.getBlockHeight({ commitment: 'finalized' }).send();
        if (height > lastValid) {
          // It may have landed between the status lookup and this one: look once more before calling it expired.
          if (expiredOnce)
            return {
              landed: false,
              signature: transfer.signature,
              error: 'the transaction expired before it landed; nothing was transferred',
            };
          expiredOnce = true;
          continue;
        }
        if (Date.now() - lastSent >= (options.resendMs ?? 2000)) {
          await rpc
            .sendTransaction(transfer.wire as Base64EncodedWireTransaction, {
              encoding: 'base64',
              skipPreflight: true,
              maxRetries: 0n,
            })
            .send();
          lastSent = Date.now();
          continue;
        }
      }
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  }
}

export type SolanaFinality = 'finalized' | 'pending' | 'dropped';

/** An account as the RPC answers it (null: it does not exist). */
export type AccountState = { lamports: bigint; owner: string; data: Uint8Array } | null;

/** The Token-2022 program: token accounts of its mints are the person's too. */
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';

/** An RPC account (base64) as state; one with no lamports is gone (a cluster may answer it as an empty account). */
const stateOf = (
  info: { lamports: bigint | number; owner: string; data: readonly [string, string] | string[] } | null | undefined,
): AccountState =>
  info && BigInt(info.lamports) > 0n
    ? { lamports: BigInt(info.lamports), owner: info.owner, data: new Uint8Array(Buffer.from(info.data[0]!, 'base64')) }
    : null;

/** The System program's AdvanceNonceAccount instruction (index 4): a durable-nonce transaction never expires. */
const ADVANCE_NONCE = 4;
const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111';
const DEFAULT_UNITS_PER_INSTRUCTION = 200_000n;
const MAX_UNITS = 1_400_000n;

/** A transaction another party built (base64), read for the checks made before it is signed. */
export interface ReadTransaction {
  feePayer: string;
  /** Each instruction's program and data. */
  instructions: Array<{ program: string; data: Uint8Array }>;
  programs: string[];
  /** The accounts that must sign, and whether each already has. */
  signers: Array<{ address: string; signed: boolean }>;
  /** Its lifetime: a recent blockhash, or (first instruction AdvanceNonceAccount) a durable nonce that never expires. */
  durableNonce: boolean;
  /** The most it can cost its fee payer: 5,000 lamports a signature plus its priority fee (unit price × limit). */
  feeLamports: bigint;
  /** The accounts it names itself, and those it loads from address lookup tables (v0): which of a table's entries. */
  staticAccounts: string[];
  lookups: Array<{ table: string; indexes: number[] }>;
}

export async function readTransaction(wire: string): Promise<ReadTransaction> {
  const { kit, system } = await solanaLibraries();
  const tx = kit.getTransactionDecoder().decode(kit.getBase64Encoder().encode(wire));
  const message = kit.getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
  if (message.version !== 'legacy' && message.version !== 0)
    throw new Error(`a version ${message.version} transaction message is not read here`);
  const keys = message.staticAccounts.map(String);
  const instructions = message.instructions.map((i) => ({
    program: keys[i.programAddressIndex]!,
    data: new Uint8Array(i.data ?? []),
  }));
  const first = instructions[0];
  const durableNonce =
    first?.program === system.SYSTEM_PROGRAM_ADDRESS &&
    first.data.length >= 4 &&
    Buffer.from(first.data).readUInt32LE(0) === ADVANCE_NONCE;
  // Compute Budget: SetComputeUnitLimit (2, u32) and SetComputeUnitPrice (3, u64 micro-lamports per unit).
  let limit: bigint | undefined;
  let price = 0n;
  for (const { program, data } of instructions) {
    if (program !== COMPUTE_BUDGET_PROGRAM) continue;
    const bytes = Buffer.from(data);
    if (bytes[0] === 2 && bytes.length >= 5) limit = BigInt(bytes.readUInt32LE(1));
    if (bytes[0] === 3 && bytes.length >= 9) price = bytes.readBigUInt64LE(1);
  }
  const others = BigInt(instructions.filter((i) => i.program !== COMPUTE_BUDGET_PROGRAM).length);
  const units =
    limit ?? (others * DEFAULT_UNITS_PER_INSTRUCTION > MAX_UNITS ? MAX_UNITS : others * DEFAULT_UNITS_PER_INSTRUCTION);
  const signatures = BigInt(message.header.numSignerAccounts);
  return {
    feePayer: keys[0]!,
    instructions,
    programs: instructions.map((i) => i.program),
    signers: Object.entries(tx.signatures).map(([signer, signature]) => ({
      address: signer,
      signed: signature !== null && signature.some((b) => b !== 0),
    })),
    durableNonce,
    feeLamports: LAMPORTS_PER_SIGNATURE * signatures + (price * units + 999_999n) / 1_000_000n,
    staticAccounts: keys,
    lookups: (message.version === 0 ? (message.addressTableLookups ?? []) : []).map((l) => ({
      table: String(l.lookupTableAddress),
      indexes: [...l.writableIndexes, ...l.readonlyIndexes],
    })),
  };
}

/** Adds the signature of the key with this seed to a transaction another party built, leaving theirs as they are. */
export async function signAsParty(wire: string, seed: Uint8Array): Promise<{ wire: string; signature: string }> {
  const { kit } = await solanaLibraries();
  const tx = kit.getTransactionDecoder().decode(kit.getBase64Encoder().encode(wire));
  const signed = await kit.partiallySignTransaction([await kit.createKeyPairFromPrivateKeyBytes(seed)], tx);
  return { wire: kit.getBase64EncodedWireTransaction(signed), signature: kit.getSignatureFromTransaction(signed) };
}

/** The 32 bytes of an address. */
export const addressBytes = async (a: string): Promise<Uint8Array> => {
  const { kit } = await solanaLibraries();
  return new Uint8Array(kit.getAddressEncoder().encode(kit.address(a)));
};

/** One client per configured Solana network. */
export class SolanaChains {
  private readonly chains = new Map<string, SolanaChain>();

  constructor(private readonly timeoutMs = 15_000) {}

  for(network: SolanaNetwork): SolanaChain {
    let chain = this.chains.get(network.networkId);
    if (!chain) {
      chain = new SolanaChain(network, this.timeoutMs);
      this.chains.set(network.networkId, chain);
    }
    return chain;
  }
}

/** The faucet of a development cluster (the local chain's `POST /faucet`): funds an address once; asking again is harmless. */
export class SolanaFaucet {
  constructor(private readonly timeoutMs = 10_000) {}

  async fund(faucetUrl: string, owner: string): Promise<void> {
    const response = await fetch(faucetUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ address: owner }),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    if (!response.ok) throw new Error(`faucet ${faucetUrl} answered ${response.status}`);
  }
}
