import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import { Contract, Interface, getAddress, type InterfaceAbi } from 'ethers';
import { Type, type Static } from '@sinclair/typebox';
import { LockMode } from '@mikro-orm/core';
import type { Client } from '@temporalio/client';
import type { Orm } from '../../db/orm';
import { SmartAccountEntity, SolanaWalletEntity, TransferEntity, type Transfer } from '../../db/entities';
import { coinOf, type NetworkRegistry, type EvmNetwork, type SolanaNetwork } from '../../platform/networks';
import { LAMPORTS_PER_SIGNATURE, SOL_DECIMALS, type SolanaChains } from '../../integrations/solana';
import { buildTransferOperation, serializeOperation, type ChainProviders } from '../../integrations/evm/smart-account';
import { transferSignature, userOperationHash } from '../../integrations/evm/user-operation';
import { loadArtifact } from '../../contracts/build';
import type { SolanaWallets, TransferKeys } from '../../integrations/custody/key-vault';
import { AmountError, formatMoney, parseAmount } from '../../platform/money';
import { transferWorkflow } from '../../workflows/transfer';
import { transferWorkflowId, type TransferOutcome } from '../../workflows/messages';
import type { PinService } from '../pin/service';
import { defineRoute, type RouteSpec } from '../http/route-table';
import { problems } from '../http/problems';
import { startOnce } from '../http/start-once';
import { idForRequest } from '../http/idempotency';
import { evmAddress, solanaAddress } from '../common/addresses';

export interface TransferRouteDeps {
  orm: Orm; temporal: Client; networks: NetworkRegistry; providers: ChainProviders; pins: PinService; transferKeys: TransferKeys;
  solanaWallets: SolanaWallets; solanaChains: SolanaChains; taskQueue: string; waitSeconds: number;
}

const NETWORKS = ['POLYGON', 'ETHEREUM', 'SOLANA'] as const;
const ERC20 = new Interface(['function transfer(address to, uint256 amount) returns (bool)', 'function balanceOf(address) view returns (uint256)']);

const TransferBody = Type.Object({
  to_address: Type.String({ minLength: 1, maxLength: 100, description: 'EVM: 0x address (EIP-55 checksum when mixed case); SOLANA: base58 public key' }),
  network: Type.Union(NETWORKS.map((n) => Type.Literal(n))),
  token: Type.String({ pattern: '^[A-Z][A-Z0-9]{1,9}$', description: 'the network coin (ETH, POL, SOL) or a token such as USDT' }),
  amount: Type.String({ minLength: 1, maxLength: 64, description: 'decimal in whole tokens, e.g. "0.5"' }),
  pin: Type.String({ pattern: '^[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]*){4}$', maxLength: 2048, description: 'the PIN as a JWE to /api/v1/pin/public-key' }),
}, { additionalProperties: false });
const TransferView = Type.Object({
  transfer_id: Type.String(),
  status: Type.String({ description: 'processing | confirmed | failed' }),
  tx_hash: Type.Union([Type.String(), Type.Null()]),
  fee: Type.Union([Type.String({ description: 'paid in the network coin, e.g. "0.0021 ETH"' }), Type.Null()]),
  amount: Type.String({ description: 'e.g. "12.5 USDT"' }),
  to_address: Type.String(), network: Type.String(),
  error: Type.Union([Type.String(), Type.Null()]),
});

/** A 2D-nonce key of its own per transfer (uint192). */
const nonceKeyOf = (transferId: string) => BigInt(`0x${createHash('sha256').update(transferId).digest('hex').slice(0, 48)}`);

export function transferRoutes(deps: TransferRouteDeps): RouteSpec[] {
  const { orm, networks, providers } = deps;
  const view = (t: Transfer) => {
    const network = networks.any(t.networkId);
    const coin = network ? coinOf(network) : { symbol: 'ETH', decimals: 18 };
    // Fees are shown to at most 8 decimals of the coin (truncated).
    const unit = 10n ** BigInt(Math.max(0, coin.decimals - 8));
    return {
      transfer_id: t.transferId, status: t.status, tx_hash: t.txHash ?? null,
      fee: t.fee === null || t.fee === undefined ? null : formatMoney((BigInt(t.fee) / unit) * unit, coin.decimals, coin.symbol),
      amount: formatMoney(BigInt(t.amount), t.decimals, t.token), to_address: t.toAddress, network: t.networkId, error: t.error ?? null,
    };
  };
  const amountOf = (text: string, decimals: number, symbol: string): bigint => {
    try { return parseAmount(text, decimals, symbol); } catch (error) {
      if (error instanceof AmountError) throw problems.unprocessable('invalid-amount', error.message);
      throw error;
    }
  };
  const unknownToken = (symbol: string, networkId: string, known: string[]) =>
    problems.unprocessable('unknown-token', `${symbol} is not transferable on ${networkId}; tokens: ${known.join(', ')}`);

  /** Validates an EVM transfer; `create` signs it as a user operation and records it (under the account lock). */
  const planEvm = (network: EvmNetwork, body: Static<typeof TransferBody>, userId: string) => {
    const to = evmAddress(body.to_address);
    const native = network.nativeSymbol ?? 'ETH';
    const token = body.token === native ? undefined : network.tokens?.[body.token];
    if (body.token !== native && !token) throw unknownToken(body.token, network.networkId, [native, ...Object.keys(network.tokens ?? {})]);
    const decimals = token?.decimals ?? 18;
    const amount = amountOf(body.amount, decimals, body.token);
    const create = async (transferId: string): Promise<Transfer> => {
      const account = await orm.em.fork().findOne(SmartAccountEntity, { userId, networkId: network.networkId, status: 'deployed' });
      if (!account) throw problems.conflict('account-not-deployed', `Deploy your account on ${network.networkId} first`);
      if (getAddress(to) === getAddress(account.address)) throw problems.unprocessable('invalid-address', 'That is your own account');
      const provider = providers.for(network);
      const signer = await deps.transferKeys.signerFor(userId);
      const accountContract = new Contract(account.address, loadArtifact('WalletAccount').abi as InterfaceAbi, provider);
      if (!signer || (await accountContract.getFunction('transferSigner')()) !== signer.address) {
        throw problems.conflict('transfers-not-enabled', 'This account does not authorize the transfer key (deployed before transfers existed)');
      }
      const call = token
        ? { to: token.address, value: 0n, data: ERC20.encodeFunctionData('transfer', [to, amount]) }
        : { to, value: amount, data: '0x' };
      const operation = await buildTransferOperation(provider, network, account.address, call, nonceKeyOf(transferId));
      const userOpHash = userOperationHash(operation, network.chainId, network.entryPoint);
      const signed = { ...operation, signature: transferSignature(signer.signingKey.sign(userOpHash).serialized) };
      // The balance check and the insert run under a lock on the account, counting transfers still in flight,
      // so concurrent transfers can never spend the same funds twice.
      return orm.em.fork().transactional(async (tx) => {
        await tx.findOneOrFail(SmartAccountEntity, { userId, networkId: network.networkId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
        const onChain = token
          ? (await new Contract(token.address, ERC20, provider).getFunction('balanceOf')(account.address)) as bigint
          : await provider.getBalance(account.address);
        const inFlight = (await tx.find(TransferEntity, { userId, networkId: network.networkId, token: body.token, status: 'processing' }))
          .reduce((sum, t) => sum + BigInt(t.amount), 0n);
        if (inFlight + amount > onChain) {
          throw problems.unprocessable('insufficient-balance', `Available ${formatMoney(onChain - inFlight > 0n ? onChain - inFlight : 0n, decimals, body.token)}; asked ${formatMoney(amount, decimals, body.token)}`);
        }
        return tx.create(TransferEntity, {
          transferId, userId, networkId: network.networkId, token: body.token, decimals, fromAddress: account.address, toAddress: to,
          amount: amount.toString(), userOperation: serializeOperation(signed), userOpHash, status: 'processing',
        });
      });
    };
    return { create };
  };

  /** Validates a Solana transfer; `create` signs the transaction with the user's Solana key and records it (under the wallet lock). */
  const planSolana = (network: SolanaNetwork, body: Static<typeof TransferBody>, userId: string) => {
    const to = solanaAddress(body.to_address);
    const chain = deps.solanaChains.for(network);
    const token = body.token === 'SOL' ? undefined : chain.token(body.token);
    if (body.token !== 'SOL' && !token) throw unknownToken(body.token, network.networkId, ['SOL', ...Object.keys(network.tokens ?? {})]);
    const decimals = token?.decimals ?? SOL_DECIMALS;
    const amount = amountOf(body.amount, decimals, body.token);
    const sol = (lamports: bigint) => formatMoney(lamports > 0n ? lamports : 0n, SOL_DECIMALS, 'SOL');
    const create = async (transferId: string): Promise<Transfer> => {
      const wallet = await deps.solanaWallets.keyOf(userId);
      if (!wallet) throw problems.conflict('wallet-not-opened', `Open your ${network.networkId} wallet first: POST /v1/wallet/networks/${network.networkId}/wallet`);
      if (to === wallet.address) throw problems.unprocessable('invalid-address', 'That is your own wallet');
      const recipient = await chain.recipientKind(to);
      if (recipient === 'program') throw problems.unprocessable('invalid-address', 'That address is a program, not a wallet');
      if (recipient === 'token-account') throw problems.unprocessable('invalid-address', 'That address is a token account; send to the wallet that owns it');
      const rentMinimum = await chain.rpc.getMinimumBalanceForRentExemption(0n).send();
      if (!token && recipient === 'unused' && amount < rentMinimum) {
        throw problems.unprocessable('invalid-amount', `A new Solana address must receive at least ${sol(rentMinimum)}`);
      }
      const signed = await chain.signTransfer({ seed: wallet.seed, to, symbol: token ? body.token : undefined, amount, memo: transferId });
      return orm.em.fork().transactional(async (tx) => {
        await tx.findOneOrFail(SolanaWalletEntity, { userId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
        // Transfers still recorded as processing whose transaction already landed are in the balance already: only the
        // others are reserved. Statuses are read before balances, so a landing in between is counted twice (a refusal
        // to retry), never not at all (an overdraft).
        const recorded = await tx.find(TransferEntity, { userId, networkId: network.networkId, status: 'processing' });
        const landed = await chain.landed(recorded.map((t) => t.txHash!));
        const inFlight = recorded.filter((t) => !landed.has(t.txHash!));
        const lamports = await chain.balance(wallet.address);
        const lamportsLeft = lamports - inFlight.reduce((sum, t) => sum + BigInt(t.solanaTransaction?.lamportsCost ?? '0'), 0n) - BigInt(signed.lamportsCost);
        if (token) {
          const held = await chain.tokenBalance(wallet.address, body.token);
          const available = held - inFlight.filter((t) => t.token === body.token).reduce((sum, t) => sum + BigInt(t.amount), 0n);
          if (amount > available) throw problems.unprocessable('insufficient-balance', `Available ${formatMoney(available > 0n ? available : 0n, decimals, body.token)}; asked ${formatMoney(amount, decimals, body.token)}`);
          if (lamportsLeft < 0n) throw problems.unprocessable('insufficient-balance', `The network fee${BigInt(signed.lamportsCost) > LAMPORTS_PER_SIGNATURE ? ' and the recipient\'s new token account' : ''} need ${sol(BigInt(signed.lamportsCost))}; available ${sol(lamportsLeft + BigInt(signed.lamportsCost))}`);
        } else if (lamportsLeft < 0n) {
          throw problems.unprocessable('insufficient-balance', `Available ${sol(lamportsLeft + amount)} after the ${sol(LAMPORTS_PER_SIGNATURE)} fee; asked ${sol(amount)}`);
        }
        if (lamportsLeft > 0n && lamportsLeft < rentMinimum) {
          throw problems.unprocessable('insufficient-balance', `A Solana wallet must keep at least ${sol(rentMinimum)} (rent exemption) or nothing; this would leave ${sol(lamportsLeft)}`);
        }
        const failure = await chain.simulate(signed.wire);
        if (failure) throw problems.unprocessable('transfer-would-fail', `The transaction would fail on chain: ${failure}`);
        return tx.create(TransferEntity, {
          transferId, userId, networkId: network.networkId, token: body.token, decimals, fromAddress: wallet.address, toAddress: to,
          amount: amount.toString(), txHash: signed.signature, status: 'processing',
          solanaTransaction: { wire: signed.wire, lastValidBlockHeight: signed.lastValidBlockHeight, lamportsCost: signed.lamportsCost },
        });
      });
    };
    return { create };
  };

  return [
    defineRoute({
      method: 'post', path: '/api/v1/transfer/crypto/execute', operationId: 'executeCryptoTransfer', tags: ['Transfer'], auth: 'bearer',
      summary: 'Transfer coins or tokens to an external address, confirmed by PIN; answers once the transaction is final (or 202 while it runs)',
      body: TransferBody,
      rateLimits: [{ rule: 'pin-attempt', key: ({ user }) => user!.userId }],
      idempotency: { required: false, scope: ({ user }) => `user:${user!.userId}` },
      responses: {
        429: { description: 'Too many requests (Retry-After)' }, 
        200: { description: 'Transfer final (status confirmed or failed)', schema: TransferView },
        202: { description: 'Still running: poll the Location', schema: TransferView },
        409: { description: 'EVM: no deployed account with transfers enabled on the network; SOLANA: wallet not opened; or no PIN set' },
        422: { description: 'Invalid address, unknown token, bad amount, insufficient balance (fees and rent included), a transfer that would fail, or wrong PIN' },
        423: { description: 'PIN locked after too many wrong PINs' }, 503: { description: 'Network not configured or its RPC unavailable' },
      },
      handler: async ({ body, user }, ctx?: Context) => {
        const userId = user!.userId;
        const network = networks.any(body.network);
        if (!network) {
          if (body.network === 'SOLANA') solanaAddress(body.to_address); // still tell a bad address apart
          throw problems.unavailable(`${body.network} is not configured`);
        }
        const plan = network.kind === 'solana' ? planSolana(network, body, userId) : planEvm(network, body, userId);
        await deps.pins.verify(userId, body.pin);

        const transferId = idForRequest('tr', userId, ctx?.get('idempotency-key') || undefined);
        if (!(await orm.em.fork().findOne(TransferEntity, { transferId, userId }))) await plan.create(transferId);
        await startOnce(() => deps.temporal.workflow.start(transferWorkflow, {
          workflowId: transferWorkflowId(transferId), taskQueue: deps.taskQueue, workflowIdReusePolicy: 'REJECT_DUPLICATE',
          args: [{ transferId, userId, networkId: network.networkId }],
        }));
        const handle = deps.temporal.workflow.getHandle(transferWorkflowId(transferId));
        const outcome = await Promise.race([
          handle.result() as Promise<TransferOutcome>,
          new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), deps.waitSeconds * 1000)),
        ]);
        const current = await orm.em.fork().findOneOrFail(TransferEntity, { transferId });
        const location = { location: `/api/v1/transfer/crypto/${transferId}` };
        return outcome ? { status: 200, body: view(current), headers: location } : { status: 202, body: view(current), headers: location };
      },
    }),

    defineRoute({
      method: 'get', path: '/api/v1/transfer/crypto/:transferId', operationId: 'getCryptoTransfer', tags: ['Transfer'], auth: 'bearer',
      summary: 'A crypto transfer and its status',
      params: Type.Object({ transferId: Type.String({ pattern: '^tr_[0-9a-f-]{36}$' }) }),
      responses: { 200: { description: 'Transfer', schema: TransferView }, 404: { description: 'No such transfer for this user' } },
      handler: async ({ params, user }) => {
        const transfer = await orm.em.fork().findOne(TransferEntity, { transferId: params.transferId, userId: user!.userId });
        if (!transfer) throw problems.notFound(`Transfer ${params.transferId}`);
        return { status: 200, body: view(transfer) };
      },
    }),
  ];
}
