/**
 * The local SOLANA chain of the embedded stack and the tests: one LiteSVM (the Solana runtime, with the SPL token,
 * associated-token and memo programs) behind the standard Solana JSON-RPC methods the service uses, so the service
 * speaks plain Solana RPC in every mode and the same signed bytes that production sends to a cluster execute here.
 *
 * Like a validator it makes a block every `blockTimeMs` (a new blockhash), accepts a transaction only while its
 * blockhash is among the last 150 blocks, never executes the same signature twice, and charges the fee of a
 * transaction that fails in a program. It adds a test USDT mint (6 decimals) and a dev faucet (`POST /faucet`) that
 * gives an address SOL and USDT once. State (accounts, signature statuses) persists to `stateFile` on stop.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo, Socket } from 'node:net';
import { FailedTransactionMetadata, LiteSVM } from 'litesvm';
import {
  InstructionErrorCustom,
  TransactionErrorDuplicateInstruction,
  TransactionErrorInstructionError,
  TransactionErrorInsufficientFundsForRent,
} from 'litesvm/dist/internal';
import {
  address,
  appendTransactionMessageInstructions,
  createKeyPairSignerFromPrivateKeyBytes,
  createTransactionMessage,
  getBase58Decoder,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  isAddress,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type Blockhash,
  type Instruction,
  type Transaction,
} from '@solana/kit';
import { getCreateAccountInstruction } from '@solana-program/system';
import {
  TOKEN_PROGRAM_ADDRESS,
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getInitializeMint2Instruction,
  getMintSize,
  getMintToCheckedInstruction,
} from '@solana-program/token';

/** Blocks a blockhash stays valid for, as on Solana clusters. */
export const BLOCKHASH_VALIDITY_BLOCKS = 150;
/** The base fee per signature on Solana clusters (no priority fees here). */
export const LAMPORTS_PER_SIGNATURE = 5000n;
export const TEST_USDT_DECIMALS = 6;
const FAUCET_SOL = 2_000_000_000n;
const FAUCET_USDT = 1_000n * 10n ** BigInt(TEST_USDT_DECIMALS);

/** Well-known local keys (like anvil's development accounts): derived from fixed labels, used only on this chain. */
const localSigner = (label: string) =>
  createKeyPairSignerFromPrivateKeyBytes(
    new Uint8Array(createHash('sha256').update(`wallet-service/solana-local/${label}`).digest()),
  );

export interface LocalSolana {
  rpcUrl: string;
  /** The faucet endpoint: POST {address} gives SOL and test USDT, once per address. */
  faucetUrl: string;
  usdtMint: string;
  /** Executes a block now (a new blockhash); tests use it to age transactions past their blockhash. */
  advanceBlocks(count: number): void;
  blockHeight(): bigint;
  balance(owner: string): bigint;
  tokenBalance(owner: string, mint: string): Promise<bigint>;
  /** Gives an address SOL and test USDT (development only: what seeds the sandbox's Jupiter pool). */
  grant(owner: string, amounts: { lamports: bigint; usdt: bigint }): Promise<void>;
  stop(): Promise<void>;
}

/** A token amount as the RPC's uiAmountString writes it ("1.5"). */
const formatUnits = (amount: bigint, decimals: number): string =>
  decimals
    ? `${amount / 10n ** BigInt(decimals)}.${(amount % 10n ** BigInt(decimals)).toString().padStart(decimals, '0')}`.replace(
        /\.?0+$/,
        '',
      )
    : amount.toString();

interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner: string;
  amount: string;
  decimals: number;
}
/** What getTransaction's meta shows of a transaction's accounts: lamports and token amounts before and after it. */
interface BalanceMeta {
  accountKeys: string[];
  preBalances: string[];
  postBalances: string[];
  preTokenBalances: TokenBalance[];
  postTokenBalances: TokenBalance[];
}
interface SignatureStatus {
  slot: bigint;
  err: unknown;
  fee: bigint;
  balances?: BalanceMeta;
}
interface StoredState {
  accounts: Array<{
    address: string;
    lamports: string;
    data: string;
    owner: string;
    executable: boolean;
    space: string;
  }>;
  statuses: Array<[string, { slot: string; err: unknown; fee: string; balances?: BalanceMeta }]>;
  funded: string[];
  blockHeight: string;
}

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** u64 values go out as JSON numbers without losing precision (as Solana RPC does). */
const toJson = (value: unknown): string =>
  JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? `__big:${v}` : v)).replace(
    /"__big:(-?\d+)"/g,
    '$1',
  );

/** Names of litesvm's fieldless error enums, by value (Solana's TransactionError and InstructionError variants). */
const TRANSACTION_ERRORS = [
  'AccountInUse',
  'AccountLoadedTwice',
  'AccountNotFound',
  'ProgramAccountNotFound',
  'InsufficientFundsForFee',
  'InvalidAccountForFee',
  'AlreadyProcessed',
  'BlockhashNotFound',
  'CallChainTooDeep',
  'MissingSignatureForFee',
  'InvalidAccountIndex',
  'SignatureFailure',
  'InvalidProgramForExecution',
  'SanitizeFailure',
  'ClusterMaintenance',
  'AccountBorrowOutstanding',
  'WouldExceedMaxBlockCostLimit',
  'UnsupportedVersion',
  'InvalidWritableAccount',
  'WouldExceedMaxAccountCostLimit',
  'WouldExceedAccountDataBlockLimit',
  'TooManyAccountLocks',
  'AddressLookupTableNotFound',
  'InvalidAddressLookupTableOwner',
  'InvalidAddressLookupTableData',
  'InvalidAddressLookupTableIndex',
  'InvalidRentPayingAccount',
  'WouldExceedMaxVoteCostLimit',
  'WouldExceedAccountDataTotalLimit',
  'MaxLoadedAccountsDataSizeExceeded',
  'ResanitizationNeeded',
  'InvalidLoadedAccountsDataSizeLimit',
  'UnbalancedTransaction',
  'ProgramCacheHitMaxLimit',
  'CommitCancelled',
];
const INSTRUCTION_ERRORS = [
  'GenericError',
  'InvalidArgument',
  'InvalidInstructionData',
  'InvalidAccountData',
  'AccountDataTooSmall',
  'InsufficientFunds',
  'IncorrectProgramId',
  'MissingRequiredSignature',
  'AccountAlreadyInitialized',
  'UninitializedAccount',
  'UnbalancedInstruction',
  'ModifiedProgramId',
  'ExternalAccountLamportSpend',
  'ExternalAccountDataModified',
  'ReadonlyLamportChange',
  'ReadonlyDataModified',
  'DuplicateAccountIndex',
  'ExecutableModified',
  'RentEpochModified',
  'NotEnoughAccountKeys',
  'AccountDataSizeChanged',
  'AccountNotExecutable',
  'AccountBorrowFailed',
  'AccountBorrowOutstanding',
  'DuplicateAccountOutOfSync',
  'InvalidError',
  'ExecutableDataModified',
  'ExecutableLamportChange',
  'ExecutableAccountNotRentExempt',
  'UnsupportedProgramId',
  'CallDepth',
  'MissingAccount',
  'ReentrancyNotAllowed',
  'MaxSeedLengthExceeded',
  'InvalidSeeds',
  'InvalidRealloc',
  'ComputationalBudgetExceeded',
  'PrivilegeEscalation',
  'ProgramEnvironmentSetupFailure',
  'ProgramFailedToComplete',
  'ProgramFailedToCompile',
  'Immutable',
  'IncorrectAuthority',
  'AccountNotRentExempt',
  'InvalidAccountOwner',
  'ArithmeticOverflow',
  'UnsupportedSysvar',
  'IllegalOwner',
  'MaxAccountsDataAllocationsExceeded',
  'MaxAccountsExceeded',
  'MaxInstructionTraceLengthExceeded',
  'BuiltinProgramsMustConsumeComputeUnits',
  'BorshIoError',
];

/** A litesvm error in the JSON shape of Solana RPC (`"BlockhashNotFound"`, `{"InstructionError":[1,{"Custom":1}]}`). */
const errorJson = (err: unknown): unknown => {
  if (err === null || err === undefined) return null;
  if (typeof err === 'number') return TRANSACTION_ERRORS[err] ?? `TransactionError${err}`;
  if (err instanceof TransactionErrorInstructionError) {
    const inner = err.err();
    const detail =
      typeof inner === 'number'
        ? (INSTRUCTION_ERRORS[inner] ?? `InstructionError${inner}`)
        : inner instanceof InstructionErrorCustom
          ? { Custom: inner.code }
          : { BorshIoError: String((inner as { msg?: string }).msg ?? inner) };
    return { InstructionError: [err.index, detail] };
  }
  if (err instanceof TransactionErrorInsufficientFundsForRent)
    return { InsufficientFundsForRent: { account_index: err.accountIndex } };
  if (err instanceof TransactionErrorDuplicateInstruction) return { DuplicateInstruction: err.index };
  return String(err);
};

export async function startLocalSolana(
  options: { port?: number; stateFile?: string; blockTimeMs?: number } = {},
): Promise<LocalSolana> {
  const svm = new LiteSVM().withBlockhashCheck(false).withTransactionHistory(0n);
  const statuses = new Map<string, SignatureStatus>();
  const touched = new Set<string>();
  let saveTimer: NodeJS.Timeout | undefined;
  const funded = new Set<string>();
  /** blockhash -> the block height it was produced at */
  const recent = new Map<string, bigint>();
  let height = 0n;
  const newBlock = () => {
    svm.expireBlockhash();
    height += 1n;
    recent.set(svm.latestBlockhash(), height);
    for (const [hash, at] of recent) if (at < height - BigInt(BLOCKHASH_VALIDITY_BLOCKS) - 10n) recent.delete(hash);
  };

  if (options.stateFile && existsSync(options.stateFile)) {
    const state = JSON.parse(readFileSync(options.stateFile, 'utf8')) as StoredState;
    for (const a of state.accounts) {
      svm.setAccount({
        address: address(a.address),
        lamports: lamports(BigInt(a.lamports)),
        data: Buffer.from(a.data, 'base64'),
        programAddress: address(a.owner),
        executable: a.executable,
        space: BigInt(a.space),
      });
      touched.add(a.address);
    }
    for (const [sig, s] of state.statuses)
      statuses.set(sig, { slot: BigInt(s.slot), err: s.err, fee: BigInt(s.fee), balances: s.balances });
    for (const f of state.funded) funded.add(f);
    height = BigInt(state.blockHeight);
  }
  newBlock();

  const authority = await localSigner('faucet');
  const mint = await localSigner('test-usdt-mint');
  const sign = async (instructions: Instruction[]): Promise<Transaction> =>
    pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(authority, m),
      (m) =>
        setTransactionMessageLifetimeUsingBlockhash(
          { blockhash: svm.latestBlockhash() as Blockhash, lastValidBlockHeight: height + 150n },
          m,
        ),
      (m) => appendTransactionMessageInstructions(instructions, m),
      (m) => signTransactionMessageWithSigners(m),
    );

  /** The SPL token accounts among these, with their mint, owner and amount (as getTransaction's token balances). */
  const tokenBalancesOf = (accounts: readonly Address[]): TokenBalance[] =>
    accounts.flatMap((account, accountIndex) => {
      const found = svm.getAccount(account);
      if (!found.exists || found.programAddress !== TOKEN_PROGRAM_ADDRESS || found.data.length < 165) return [];
      const data = Buffer.from(found.data);
      const mint = getBase58Decoder().decode(data.subarray(0, 32));
      const mintAccount = svm.getAccount(address(mint));
      return [
        {
          accountIndex,
          mint,
          owner: getBase58Decoder().decode(data.subarray(32, 64)),
          amount: data.readBigUInt64LE(64).toString(),
          decimals: mintAccount.exists ? mintAccount.data[44]! : 0,
        },
      ];
    });

  /** Runs a transaction as a validator would; returns its signature, or throws as sendTransaction does. */
  const execute = (tx: Transaction): string => {
    const message = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
    const signature = getBase58Decoder().decode(Object.values(tx.signatures)[0]!);
    if (statuses.has(signature)) return signature; // already processed: executing it again is impossible
    const blockAt = recent.get(message.lifetimeToken);
    if (blockAt === undefined || blockAt + BigInt(BLOCKHASH_VALIDITY_BLOCKS) < height)
      throw new RpcError(-32002, 'Transaction simulation failed: Blockhash not found', { err: 'BlockhashNotFound' });
    const feePayer = message.staticAccounts[0]!;
    const before = svm.getBalance(feePayer) ?? 0n;
    const preBalances = message.staticAccounts.map((a) => (svm.getBalance(a) ?? 0n).toString());
    const preTokenBalances = tokenBalancesOf(message.staticAccounts);
    const result = svm.sendTransaction(tx);
    const balances = (): BalanceMeta => ({
      accountKeys: [...message.staticAccounts],
      preBalances,
      postBalances: message.staticAccounts.map((a) => (svm.getBalance(a) ?? 0n).toString()),
      preTokenBalances,
      postTokenBalances: tokenBalancesOf(message.staticAccounts),
    });
    if (result instanceof FailedTransactionMetadata) {
      const charged = before - (svm.getBalance(feePayer) ?? 0n);
      // A transaction that fails before it runs (bad signature, fee payer cannot pay) never lands; one that fails in a
      // program lands with its error and pays its fee.
      if (charged <= 0n)
        throw new RpcError(-32002, `Transaction simulation failed: ${String(result.err())}`, {
          err: errorJson(result.err()),
          logs: result.meta().logs(),
        });
      statuses.set(signature, { slot: height, err: errorJson(result.err()), fee: charged, balances: balances() });
    } else {
      statuses.set(signature, {
        slot: height,
        err: null,
        fee: LAMPORTS_PER_SIGNATURE * BigInt(Object.keys(tx.signatures).length),
        balances: balances(),
      });
    }
    for (const account of message.staticAccounts) touched.add(account);
    scheduleSave();
    return signature;
  };

  if (!svm.getAccount(mint.address).exists) {
    svm.airdrop(authority.address, lamports(1_000_000_000_000n));
    touched.add(authority.address);
    execute(
      await sign([
        getCreateAccountInstruction({
          payer: authority,
          newAccount: mint,
          lamports: svm.minimumBalanceForRentExemption(BigInt(getMintSize())),
          space: getMintSize(),
          programAddress: TOKEN_PROGRAM_ADDRESS,
        }),
        getInitializeMint2Instruction({
          mint: mint.address,
          decimals: TEST_USDT_DECIMALS,
          mintAuthority: authority.address,
        }),
      ]),
    );
  }

  const tokenAccount = async (owner: string, mintAddress: string) =>
    (
      await findAssociatedTokenPda({
        owner: address(owner),
        mint: address(mintAddress),
        tokenProgram: TOKEN_PROGRAM_ADDRESS,
      })
    )[0];
  /** The amount of an SPL token account (the u64 at offset 64 of its data), or undefined when there is none. */
  const tokenAmountAt = (account: Address): bigint | undefined => {
    const found = svm.getAccount(account);
    if (!found.exists || found.programAddress !== TOKEN_PROGRAM_ADDRESS) return undefined;
    return Buffer.from(found.data).readBigUInt64LE(64);
  };

  const decodeWire = (params: unknown[]): Transaction => {
    const [wire, config] = params as [string, { encoding?: string } | undefined];
    if (typeof wire !== 'string') throw new RpcError(-32602, 'Invalid params: expected an encoded transaction');
    if ((config?.encoding ?? 'base58') !== 'base64')
      throw new RpcError(-32602, 'Invalid params: only base64 encoding is supported here');
    try {
      return getTransactionDecoder().decode(getBase64Encoder().encode(wire));
    } catch {
      throw new RpcError(-32602, 'Invalid params: failed to deserialize the transaction');
    }
  };
  const addressParam = (value: unknown): Address => {
    if (typeof value !== 'string' || !isAddress(value))
      throw new RpcError(-32602, `Invalid param: Invalid address ${String(value)}`);
    return value;
  };
  const context = () => ({ context: { slot: height, apiVersion: '2.2.0' } });
  /** An account as the RPC's base64 encoding answers it. */
  const encodedAccount = (found: {
    lamports: bigint;
    programAddress: string;
    executable: boolean;
    data: ArrayLike<number>;
  }) => ({
    lamports: found.lamports,
    owner: found.programAddress,
    executable: found.executable,
    rentEpoch: 18446744073709551615n,
    space: BigInt(found.data.length),
    data: [Buffer.from(found.data).toString('base64'), 'base64'],
  });

  const methods: Record<string, (params: unknown[]) => unknown> = {
    getHealth: () => 'ok',
    getVersion: () => ({ 'solana-core': 'litesvm-1.5.0', 'feature-set': 0 }),
    getSlot: () => height,
    getBlockHeight: () => height,
    getGenesisHash: () => 'wallet-service-local-solana',
    getLatestBlockhash: () => ({
      ...context(),
      value: { blockhash: svm.latestBlockhash(), lastValidBlockHeight: height + BigInt(BLOCKHASH_VALIDITY_BLOCKS) },
    }),
    isBlockhashValid: ([hash]) => {
      const at = recent.get(String(hash));
      return { ...context(), value: at !== undefined && at + BigInt(BLOCKHASH_VALIDITY_BLOCKS) >= height };
    },
    getMinimumBalanceForRentExemption: ([size]) => svm.minimumBalanceForRentExemption(BigInt(Number(size ?? 0))),
    getBalance: ([owner]) => ({ ...context(), value: svm.getBalance(addressParam(owner)) ?? 0n }),
    getAccountInfo: ([account]) => {
      const found = svm.getAccount(addressParam(account));
      return { ...context(), value: found.exists ? encodedAccount(found) : null };
    },
    getTokenAccountsByOwner: ([owner, filter]) => {
      const wallet = addressParam(owner);
      const program = (filter as { programId?: string } | undefined)?.programId;
      if (!program) throw new RpcError(-32602, 'Invalid params: only the programId filter is supported here');
      const value = [...touched].flatMap((a) => {
        const found = svm.getAccount(address(a));
        if (!found.exists || found.programAddress !== program || found.data.length < 165) return [];
        if (getBase58Decoder().decode(found.data.slice(32, 64)) !== wallet) return [];
        return [{ pubkey: a, account: encodedAccount(found) }];
      });
      return { ...context(), value };
    },
    getTokenAccountBalance: ([account]) => {
      const amount = tokenAmountAt(addressParam(account));
      if (amount === undefined) throw new RpcError(-32602, 'Invalid param: could not find account');
      const found = svm.getAccount(addressParam(account));
      const mintAccount = found.exists
        ? svm.getAccount(address(getBase58Decoder().decode(found.data.slice(0, 32))))
        : undefined;
      const decimals = mintAccount?.exists ? mintAccount.data[44]! : 0;
      const uiAmountString = formatUnits(amount, decimals);
      return {
        ...context(),
        value: { amount: amount.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString },
      };
    },
    requestAirdrop: ([owner, amount]) => {
      const to = addressParam(owner);
      const result = svm.airdrop(to, lamports(BigInt(Number(amount))));
      if (!result || result instanceof FailedTransactionMetadata) throw new RpcError(-32603, 'airdrop failed');
      touched.add(to);
      scheduleSave();
      const signature = getBase58Decoder().decode(result.signature());
      statuses.set(signature, { slot: height, err: null, fee: 0n });
      return signature;
    },
    simulateTransaction: (params) => {
      const tx = decodeWire(params);
      // `accounts`: the state of these accounts after the transaction, as a cluster's simulation answers them.
      const config = params[1] as { accounts?: { addresses?: unknown[] }; sigVerify?: boolean } | undefined;
      const wanted = config?.accounts?.addresses;
      // As on a cluster, signatures are checked only when asked (sigVerify, default false): an unsigned message simulates.
      svm.withSigverify(config?.sigVerify === true);
      let result: ReturnType<typeof svm.simulateTransaction>;
      try {
        result = svm.simulateTransaction(tx);
      } finally {
        svm.withSigverify(true);
      }
      if (result instanceof FailedTransactionMetadata)
        return {
          ...context(),
          value: {
            err: errorJson(result.err()),
            logs: result.meta().logs(),
            unitsConsumed: result.meta().computeUnitsConsumed(),
            accounts: wanted ? wanted.map(() => null) : null,
          },
        };
      const after = new Map(result.postAccounts().map((a) => [a.address as string, a]));
      const encoded = (account: unknown) => {
        const now = svm.getAccount(addressParam(account));
        const found = after.get(String(account)) ?? (now.exists ? now : undefined);
        if (!found) return null;
        // An account left with no lamports is gone at the end of the transaction.
        return found.lamports === 0n ? null : encodedAccount(found);
      };
      return {
        ...context(),
        value: {
          err: null,
          logs: result.meta().logs(),
          unitsConsumed: result.meta().computeUnitsConsumed(),
          accounts: wanted ? wanted.map(encoded) : null,
        },
      };
    },
    sendTransaction: (params) => {
      const tx = decodeWire(params);
      const { skipPreflight } = (params[1] ?? {}) as { skipPreflight?: boolean };
      const signature = getBase58Decoder().decode(Object.values(tx.signatures)[0]!);
      if (!skipPreflight && !statuses.has(signature)) {
        const simulated = svm.simulateTransaction(tx);
        if (simulated instanceof FailedTransactionMetadata)
          throw new RpcError(-32002, `Transaction simulation failed: ${String(simulated.err())}`, {
            err: errorJson(simulated.err()),
            logs: simulated.meta().logs(),
          });
      }
      try {
        return execute(tx);
      } catch (error) {
        // Without preflight a cluster answers with the signature and drops what cannot land; the sender learns it
        // when the blockhash expires with no status for the signature.
        if (skipPreflight && error instanceof RpcError) return signature;
        throw error;
      }
    },
    getSignatureStatuses: ([signatures]) => ({
      ...context(),
      value: (signatures as string[]).map((sig) => {
        const status = statuses.get(sig);
        if (!status) return null;
        return {
          slot: status.slot,
          confirmations: null,
          err: status.err,
          status: status.err ? { Err: status.err } : { Ok: null },
          confirmationStatus: 'finalized',
        };
      }),
    }),
    getTransaction: ([sig]) => {
      const status = statuses.get(String(sig));
      if (!status) return null;
      const b = status.balances;
      const uiTokenAmount = (t: TokenBalance) => ({
        amount: t.amount,
        decimals: t.decimals,
        uiAmountString: formatUnits(BigInt(t.amount), t.decimals),
      });
      const tokenBalance = (t: TokenBalance) => ({
        accountIndex: t.accountIndex,
        mint: t.mint,
        owner: t.owner,
        programId: TOKEN_PROGRAM_ADDRESS,
        uiTokenAmount: uiTokenAmount(t),
      });
      return {
        slot: status.slot,
        blockTime: null,
        meta: {
          fee: status.fee,
          err: status.err,
          status: status.err ? { Err: status.err } : { Ok: null },
          // As a cluster's `json` encoding: balances by account index, token balances by owner and mint.
          ...(b
            ? {
                preBalances: b.preBalances.map(BigInt),
                postBalances: b.postBalances.map(BigInt),
                preTokenBalances: b.preTokenBalances.map(tokenBalance),
                postTokenBalances: b.postTokenBalances.map(tokenBalance),
                loadedAddresses: { writable: [], readonly: [] },
              }
            : {}),
        },
        transaction: b ? { signatures: [String(sig)], message: { accountKeys: b.accountKeys } } : null,
      };
    },
  };

  const readBody = (req: IncomingMessage): Promise<string> =>
    new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      req.on('error', reject);
    });
  const callOne = (call: { id?: unknown; method?: unknown; params?: unknown }) => {
    const id = call.id ?? null;
    const method = typeof call.method === 'string' ? methods[call.method] : undefined;
    if (!method) return { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } };
    try {
      return { jsonrpc: '2.0', id, result: method(Array.isArray(call.params) ? call.params : []) };
    } catch (error) {
      if (error instanceof RpcError)
        return {
          jsonrpc: '2.0',
          id,
          error: { code: error.code, message: error.message, ...(error.data ? { data: error.data } : {}) },
        };
      return { jsonrpc: '2.0', id, error: { code: -32603, message: (error as Error).message } };
    }
  };

  const grant = async (owner: string, amounts: { lamports: bigint; usdt: bigint }): Promise<void> => {
    if (amounts.lamports > 0n) svm.airdrop(address(owner), lamports(amounts.lamports));
    touched.add(owner);
    if (amounts.usdt <= 0n) return;
    const ata = await tokenAccount(owner, mint.address);
    execute(
      await sign([
        getCreateAssociatedTokenIdempotentInstruction({
          payer: authority,
          owner: address(owner),
          mint: mint.address,
          ata,
        }),
        getMintToCheckedInstruction({
          mint: mint.address,
          token: ata,
          mintAuthority: authority,
          amount: amounts.usdt,
          decimals: TEST_USDT_DECIMALS,
        }),
      ]),
    );
  };
  /** The faucet: SOL and test USDT, once per address. */
  const fund = async (owner: string): Promise<{ funded: boolean }> => {
    if (funded.has(owner)) return { funded: false };
    funded.add(owner);
    await grant(owner, { lamports: FAUCET_SOL, usdt: FAUCET_USDT });
    return { funded: true };
  };

  const server: Server = createServer((req, res) => {
    void (async () => {
      const reply = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(toJson(body));
      };
      try {
        const text = await readBody(req);
        if (req.method === 'POST' && req.url === '/faucet') {
          const { address: owner } = JSON.parse(text) as { address?: string };
          if (typeof owner !== 'string' || !isAddress(owner))
            return reply(400, { error: 'address must be a base58 public key' });
          return reply(200, { address: owner, ...(await fund(owner)), sol: '2', usdt: '1000' });
        }
        if (req.method !== 'POST') return reply(405, { error: 'JSON-RPC over POST' });
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          return reply(200, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
        }
        return reply(200, Array.isArray(parsed) ? parsed.map((c) => callOne(c as object)) : callOne(parsed as object));
      } catch (error) {
        return reply(500, { error: (error as Error).message });
      }
    })();
  });
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const blocks = setInterval(newBlock, options.blockTimeMs ?? 400);
  blocks.unref();

  function save(): void {
    if (!options.stateFile) return;
    const accounts = [...touched].flatMap((a) => {
      const found = svm.getAccount(address(a));
      // Programs come with LiteSVM itself; only user state is kept.
      return found.exists && !found.executable
        ? [
            {
              address: a,
              lamports: found.lamports.toString(),
              data: Buffer.from(found.data).toString('base64'),
              owner: found.programAddress,
              executable: found.executable,
              space: String(found.data.length),
            },
          ]
        : [];
    });
    const state: StoredState = {
      accounts,
      funded: [...funded],
      blockHeight: height.toString(),
      statuses: [...statuses].map(([sig, s]) => [
        sig,
        { slot: s.slot.toString(), err: s.err, fee: s.fee.toString(), balances: s.balances },
      ]),
    };
    writeFileSync(options.stateFile, JSON.stringify(state));
  }
  function scheduleSave(): void {
    if (!options.stateFile || saveTimer) return;
    saveTimer = setTimeout(() => {
      saveTimer = undefined;
      save();
    }, 1000);
    saveTimer.unref();
  }

  return {
    rpcUrl: url,
    faucetUrl: `${url}/faucet`,
    usdtMint: mint.address,
    advanceBlocks: (count) => {
      for (let i = 0; i < count; i += 1) newBlock();
    },
    blockHeight: () => height,
    balance: (owner) => svm.getBalance(address(owner)) ?? 0n,
    tokenBalance: async (owner, mintAddress) => tokenAmountAt(await tokenAccount(owner, mintAddress)) ?? 0n,
    grant,
    stop: async () => {
      clearInterval(blocks);
      if (saveTimer) clearTimeout(saveTimer);
      save();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The programs a local swap transaction may call: System, SPL Token, Associated Token, Compute Budget. */
export const LOCAL_SWAP_PROGRAMS = [
  '11111111111111111111111111111111',
  'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
  'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL',
  'ComputeBudget111111111111111111111111111111',
];

/**
 * The sandbox's Jupiter pool (its wallet's SOL and USDT) at the market's price: given `depthKrw` of each side the
 * first time; afterwards, when trades moved it more than half a percent off the market, the side it lacks is topped
 * up (development only; nothing re-prices it afterwards).
 */
export async function seedJupiterPool(
  solana: LocalSolana,
  pool: string,
  priceKrw: (symbol: string) => number,
  depthKrw = 3_000_000_000,
): Promise<void> {
  const reserve = 1_000_000_000n; // what the sandbox keeps for fees and rent, outside the pool's reserves
  const solPrice = BigInt(Math.round(priceKrw('SOL') * 1e6));
  const usdtPrice = BigInt(Math.round(priceKrw('USDT') * 1e6));
  const sol = solana.balance(pool) > reserve ? solana.balance(pool) - reserve : 0n;
  const usdt = await solana.tokenBalance(pool, solana.usdtMint);
  if (sol === 0n || usdt === 0n) {
    const depth = BigInt(depthKrw) * 10n ** 6n;
    await solana.grant(pool, {
      lamports: reserve + (depth * 10n ** 9n) / solPrice,
      usdt: (depth * 10n ** BigInt(TEST_USDT_DECIMALS)) / usdtPrice,
    });
    return;
  }
  // The pool's value of SOL in won against its USDT's: equal at the market's price.
  const solValue = (sol * solPrice) / 10n ** 9n;
  const usdtValue = (usdt * usdtPrice) / 10n ** BigInt(TEST_USDT_DECIMALS);
  if (solValue * 1000n < usdtValue * 995n)
    await solana.grant(pool, { lamports: ((usdtValue - solValue) * 10n ** 9n) / solPrice, usdt: 0n });
  else if (usdtValue * 1000n < solValue * 995n)
    await solana.grant(pool, {
      lamports: 0n,
      usdt: ((solValue - usdtValue) * 10n ** BigInt(TEST_USDT_DECIMALS)) / usdtPrice,
    });
}

/** Tells the sandbox's Jupiter which chain its pool is on and which mint is USDT (PUT /jupiter/_chain). */
export async function attachJupiterSandbox(sandboxUrl: string, solana: Pick<LocalSolana, 'rpcUrl' | 'usdtMint'>) {
  const response = await fetch(`${sandboxUrl}/jupiter/_chain`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ rpcUrl: solana.rpcUrl, mints: { USDT: solana.usdtMint } }),
  });
  if (!response.ok) throw new Error(`the sandbox's Jupiter refused its chain: ${response.status}`);
}
