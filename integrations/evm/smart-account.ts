import { createHash } from 'node:crypto';
import {
  Interface,
  Contract,
  FetchRequest,
  JsonRpcProvider,
  ZeroAddress,
  concat,
  type FeeData,
  type InterfaceAbi,
} from 'ethers';
import { loadArtifact } from '../../contracts/build';
import type { EvmNetwork } from '../../platform/networks';
import type { UserOperation } from './user-operation';
import { BundlerClient } from './bundler-client';
import { withEstimatedGas, type SignatureShape } from './gas-estimate';
import { entryPointNonce } from './entry-point';
import { NativeBodyJsonRpcProvider } from './json-rpc-provider';

/** Every user's account is salt 0 of its owner key: one account per owner per network, same address on all. */
export const ACCOUNT_SALT = 0n;
/** Gas limits before estimation: the bundler's simulation replaces them (see withEstimatedGas). */
const UNESTIMATED = { callGasLimit: 0n, verificationGasLimit: 0n, preVerificationGas: 0n };

/**
 * Each contract's ABI parsed once per process, at its first use (the artifacts are read, and built if their sources
 * changed, only then): ethers parses an ABI into an Interface on every `new Contract(address, abi)`, which for the
 * account's ABI was about 7 % of the api's CPU on the transfer path (bench/NOTES.md, issue 52).
 */
const once = <T>(make: () => T): (() => T) => {
  let made: T | undefined;
  return () => (made ??= make());
};
const factoryAbi = once(() => new Interface(loadArtifact('WalletAccountFactory').abi as InterfaceAbi));

/** One JSON-RPC provider, and one bundler client, per network, reused. */
export class ChainProviders {
  private readonly providers = new Map<string, JsonRpcProvider>();
  private readonly bundlers = new Map<string, BundlerClient>();

  /** `timeoutMs`: one JSON-RPC call's limit (CHAIN_RPC_TIMEOUT_MS; ethers' own default is five minutes). */
  constructor(private readonly timeoutMs = 15_000) {}

  /** The network's ERC-4337 bundler (bundlerUrl): gas estimates here; the worker also sends through it. */
  bundler(network: EvmNetwork): BundlerClient {
    let bundler = this.bundlers.get(network.networkId);
    if (!bundler) {
      bundler = new BundlerClient(network.bundlerUrl, network.entryPoint, this.timeoutMs);
      this.bundlers.set(network.networkId, bundler);
    }
    return bundler;
  }

  for(network: EvmNetwork): JsonRpcProvider {
    let provider = this.providers.get(network.networkId);
    if (!provider) {
      const request = new FetchRequest(network.rpcUrl);
      request.timeout = this.timeoutMs;
      provider = new NativeBodyJsonRpcProvider(request, network.chainId, {
        staticNetwork: true,
        pollingInterval: 250,
        // Calls asked in the same tick still go as one batch, without waiting ethers' default 10 ms for more: that
        // wait was paid by every call a step awaits before its next one (a transfer's signer, nonce and fee reads, the
        // inclusion watch's head and logs, the api's balance read).
        batchStallTime: 0,
      });
      this.providers.set(network.networkId, provider);
    }
    return provider;
  }

  destroy(): void {
    for (const provider of this.providers.values()) provider.destroy();
    this.providers.clear();
  }
}

export async function counterfactualAddress(
  provider: JsonRpcProvider,
  network: EvmNetwork,
  owner: string,
): Promise<string> {
  const factory = new Contract(network.accountFactory, factoryAbi(), provider);
  return (await factory.getFunction('getAddress')(owner, ACCOUNT_SALT)) as string;
}

export async function isDeployed(provider: JsonRpcProvider, address: string): Promise<boolean> {
  return (await provider.getCode(address)) !== '0x';
}

/**
 * What the owner grants the service's transfer key on an account: until when, and per token (address(0): the coin)
 * the most it may send in a Korean day (WalletAccount enforces both; a token left out cannot be sent by it).
 */
export interface TransferSignerGrant {
  signer: string;
  validUntil: number;
  caps: Array<{ token: string; dailyCap: bigint }>;
}

/**
 * The user operation that deploys the account; with a transfer-signer grant, its call also configures that key
 * (execute(self, 0, configureTransferSigner(signer, validUntil, tokens, caps))), so the owner's one signature covers both.
 */
export async function buildDeployOperation(
  provider: JsonRpcProvider,
  bundler: BundlerClient,
  network: EvmNetwork,
  owner: string,
  grant?: TransferSignerGrant,
): Promise<UserOperation> {
  const factory = new Contract(network.accountFactory, factoryAbi(), provider);
  const sender = (await factory.getFunction('getAddress')(owner, ACCOUNT_SALT)) as string;
  const [nonce, fees] = await Promise.all([
    entryPointNonce(provider, network.entryPoint, sender, 0n),
    provider.getFeeData(),
  ]);
  const op: UserOperation = {
    sender,
    nonce,
    initCode: concat([
      network.accountFactory,
      factory.interface.encodeFunctionData('createAccount', [owner, ACCOUNT_SALT]),
    ]),
    callData: grant
      ? accountAbi().encodeFunctionData('execute', [
          sender,
          0n,
          accountAbi().encodeFunctionData('configureTransferSigner', [
            grant.signer,
            grant.validUntil,
            grant.caps.map((c) => c.token),
            grant.caps.map((c) => c.dailyCap),
          ]),
        ])
      : '0x',
    ...UNESTIMATED,
    ...feesOf(fees),
    paymasterAndData: '0x',
    signature: '0x',
  };
  return withEstimatedGas(bundler, op, network.paymaster, { kind: 'owner' });
}

/**
 * Fee caps: twice what the node asks now, so a rise of the base fee over the next blocks does not stall the operation
 * (EIP-1559 charges the block's base fee plus the tip, not the cap). An owner-signed operation cannot be re-priced
 * without a new signature, so the cap is chosen generously once.
 */
const feesOf = (fees: {
  maxFeePerGas: bigint | null;
  gasPrice: bigint | null;
  maxPriorityFeePerGas: bigint | null;
}) => ({
  maxFeePerGas: (fees.maxFeePerGas ?? fees.gasPrice ?? 1_000_000_000n) * 2n,
  maxPriorityFeePerGas: fees.maxPriorityFeePerGas ?? 1_000_000n,
});

/**
 * Fees that replace an operation still in a bundler's mempool on the same nonce: today's caps (as feesOf), and at
 * least an eighth above the old operation's on both caps (bundlers, like Alto, require 10 % more on each to replace).
 */
export function feesReplacing(
  fresh: Pick<UserOperation, 'maxFeePerGas' | 'maxPriorityFeePerGas'>,
  previous: Pick<UserOperation, 'maxFeePerGas' | 'maxPriorityFeePerGas'>,
): Pick<UserOperation, 'maxFeePerGas' | 'maxPriorityFeePerGas'> {
  const above = (value: bigint) => (value * 9n + 7n) / 8n;
  const max = (a: bigint, b: bigint) => (a > b ? a : b);
  return {
    maxFeePerGas: max(fresh.maxFeePerGas, above(previous.maxFeePerGas)),
    maxPriorityFeePerGas: max(fresh.maxPriorityFeePerGas, above(previous.maxPriorityFeePerGas)),
  };
}

/** Today's fee caps for a new operation on this chain (see feesOf). */
export async function currentFees(
  provider: JsonRpcProvider,
): Promise<Pick<UserOperation, 'maxFeePerGas' | 'maxPriorityFeePerGas'>> {
  return feesOf(await provider.getFeeData());
}

export const accountAbi = once(() => new Interface(loadArtifact('WalletAccount').abi as InterfaceAbi));

/**
 * A transfer from a deployed account by its transfer signer: transferWithinCap(token or address(0), to, amount), which
 * the account refuses past the token's daily cap. Its nonce uses its own key (2D nonces), so concurrent transfers never
 * wait on each other's sequence.
 */
export async function buildTransferOperation(
  provider: JsonRpcProvider,
  bundler: BundlerClient,
  network: EvmNetwork,
  account: string,
  callData: string,
  nonceKey: bigint,
  /** The chain's fee data, when the caller asked for it already (beside its own reads). */
  feeData: Promise<FeeData> = provider.getFeeData(),
): Promise<UserOperation> {
  const [nonce, fees] = await Promise.all([entryPointNonce(provider, network.entryPoint, account, nonceKey), feeData]);
  const op: UserOperation = {
    sender: account,
    nonce,
    initCode: '0x',
    callData,
    ...UNESTIMATED,
    ...feesOf(fees),
    paymasterAndData: '0x',
    signature: '0x',
  };
  return withEstimatedGas(bundler, op, network.paymaster, { kind: 'transfer' });
}

/** The account's call for a transfer by its transfer signer: the coin (token address(0)) or an ERC-20, within its cap. */
export const transferCallData = (to: string, amount: bigint, token?: { address: string }): string =>
  accountAbi().encodeFunctionData('transferWithinCap', [token?.address ?? ZeroAddress, to, amount]);

/** A 2D-nonce key of its own per transfer (uint192). */
export const transferNonceKey = (transferId: string): bigint =>
  BigInt(`0x${createHash('sha256').update(transferId).digest('hex').slice(0, 48)}`);

/**
 * A user operation of a deployed account calling `target` (itself for owner rotation, a registry, ...), signed by the
 * owner (`shape`: alone, or over a merkle root of several networks' operations).
 */
export async function buildCallOperation(
  provider: JsonRpcProvider,
  bundler: BundlerClient,
  network: EvmNetwork,
  account: string,
  target: string,
  innerCallData: string,
  shape: SignatureShape = { kind: 'owner' },
): Promise<UserOperation> {
  const callData = accountAbi().encodeFunctionData('execute', [target, 0n, innerCallData]);
  return buildOperation(provider, bundler, network, account, callData, shape);
}

/** One owner-signed operation of an account making several calls at once (its executeBatch), in order, all or none. */
export async function buildBatchOperation(
  provider: JsonRpcProvider,
  bundler: BundlerClient,
  network: EvmNetwork,
  account: string,
  calls: Array<{ target: string; value: bigint; data: string }>,
): Promise<UserOperation> {
  const callData = accountAbi().encodeFunctionData('executeBatch', [
    calls.map((c) => ({ target: c.target, value: c.value, data: c.data })),
  ]);
  return buildOperation(provider, bundler, network, account, callData, { kind: 'owner' });
}

/** An operation of a deployed account with this callData: its next nonce, today's fees, gas estimated by the bundler. */
async function buildOperation(
  provider: JsonRpcProvider,
  bundler: BundlerClient,
  network: EvmNetwork,
  account: string,
  callData: string,
  shape: SignatureShape,
): Promise<UserOperation> {
  const [nonce, fees] = await Promise.all([
    entryPointNonce(provider, network.entryPoint, account, 0n),
    provider.getFeeData(),
  ]);
  const op: UserOperation = {
    sender: account,
    nonce,
    initCode: '0x',
    callData,
    ...UNESTIMATED,
    ...feesOf(fees),
    paymasterAndData: '0x',
    signature: '0x',
  };
  return withEstimatedGas(bundler, op, network.paymaster, shape);
}

export const changeOwnerCallData = (newOwner: string): string =>
  accountAbi().encodeFunctionData('changeOwner', [newOwner]);

const BIGINT_FIELDS = [
  'nonce',
  'callGasLimit',
  'verificationGasLimit',
  'preVerificationGas',
  'maxFeePerGas',
  'maxPriorityFeePerGas',
] as const;

/** User operations are stored as JSON with bigints as decimal strings. */
export const serializeOperation = (op: UserOperation): Record<string, string> =>
  Object.fromEntries(Object.entries(op).map(([k, v]) => [k, typeof v === 'bigint' ? v.toString() : v]));

export const deserializeOperation = (stored: Record<string, string>): UserOperation => {
  const op = { ...stored } as unknown as Record<string, unknown>;
  for (const field of BIGINT_FIELDS) op[field] = BigInt(stored[field]!);
  return op as unknown as UserOperation;
};

/** What an account grants the service's transfer key, read from the chain (a read: no key is involved). */
export interface TransferKeyGrant {
  signer: string | null;
  validUntil: number;
  /** Per token address (address(0): the coin): the daily cap, and what was sent on `day` (Korean days since 1970: from 00:00 KST). */
  allowances: Map<string, { dailyCap: bigint; spent: bigint; day: number }>;
}

export async function transferKeyGrantOf(
  provider: JsonRpcProvider,
  account: string,
  tokens: string[],
): Promise<TransferKeyGrant> {
  const wallet = new Contract(account, accountAbi(), provider);
  const [signer, validUntil, ...allowances] = await Promise.all([
    wallet.getFunction('transferSigner')() as Promise<string>,
    wallet.getFunction('transferSignerValidUntil')() as Promise<bigint>,
    ...tokens.map((token) => wallet.getFunction('transferAllowances')(token) as Promise<[bigint, bigint, bigint]>),
  ]);
  return {
    signer: signer === ZeroAddress ? null : signer,
    validUntil: Number(validUntil),
    allowances: new Map(
      tokens.map((token, i) => {
        const [dailyCap, spent, day] = allowances[i] as unknown as [bigint, bigint, bigint];
        return [token, { dailyCap, spent, day: Number(day) }];
      }),
    ),
  };
}

/**
 * The transfer key an account names now (null: none), read from the chain: what the worker needs of the grant to pick
 * the key that signs a transfer, where `transferKeyGrantOf` reads its expiry too (a read each; the api's check needs it).
 */
export async function namedTransferSigner(provider: JsonRpcProvider, account: string): Promise<string | null> {
  const signer = (await new Contract(account, accountAbi(), provider).getFunction('transferSigner')()) as string;
  return signer === ZeroAddress ? null : signer;
}

/** The owner call that sets the transfer key (address(0) removes it), its expiry and caps (token addresses, base units). */
export const configureTransferSignerCallData = (
  signer: string,
  validUntil: number,
  caps: Array<{ token: string; dailyCap: bigint }>,
): string =>
  accountAbi().encodeFunctionData('configureTransferSigner', [
    signer,
    validUntil,
    caps.map((c) => c.token),
    caps.map((c) => c.dailyCap),
  ]);
