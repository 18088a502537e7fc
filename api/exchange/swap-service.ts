import { createHash, randomUUID } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Orm } from '../../db/orm';
import {
  SmartAccountEntity,
  SolanaSwapEntity,
  SolanaWalletEntity,
  type SignedOperation,
  type SolanaSwap,
  type SwapDetails,
} from '../../db/entities';
import { coinOf, type NetworkRegistry } from '../../platform/networks';
import { formatDecimal } from '../../platform/money';
import { buildBatchOperation, type ChainProviders } from '../../integrations/evm/smart-account';
import { swapCalls } from '../../integrations/dex/uniswap-v3-swap';
import { isRevert } from '../../integrations/dex/uniswap-v3';
import { userOperationHash } from '../../integrations/evm/user-operation';
import { UserOperationRejected } from '../../integrations/evm/bundler-client';
import { swapWorkflow } from '../../workflows/swap';
import { solanaSwapWorkflow } from '../../workflows/solana-swap';
import { SOL_DECIMALS } from '../../integrations/solana';
import { swapWorkflowId } from '../../workflows/messages';
import { problems } from '../http/problems';
import { sponsoredUntil, type GasSponsorships } from '../common/gas-sponsorship';
import {
  executeSingleOperation,
  findOperation,
  preparedSlots,
  progressOf,
  recordPreparedOperation,
  type SignedSlot,
} from '../common/signed-operation';
import type { Passkeys } from '../passkeys/service';
import type { QuoteEngine, QuoteTerms } from './quote';
import type { SwapLimits } from './swap-limits';
import type { Holdings } from '../common/holdings';
import { clock } from '../../platform/clock';

export interface SwapServiceDeps {
  orm: Orm;
  temporal: Client;
  taskQueue: string;
  networks: NetworkRegistry;
  providers: ChainProviders;
  quotes: QuoteEngine;
  limits: SwapLimits;
  passkeys: Passkeys;
  gas: GasSponsorships;
  holdings: Holdings;
  prepareTtlSeconds: number;
  /** SOLANA_SWAP_MAX_FEE_LAMPORTS: what a SOLANA swap of SOL must have beyond its input. */
  solanaMaxFeeLamports: number;
}

/** The digest a SOLANA swap's PIN approval names for its quote (the quoteId is too long to name itself). */
export const quoteDigest = (quoteId: string): string => createHash('sha256').update(quoteId).digest('base64url');

/** What the encrypted PIN of a SOLANA swap must name: this quote, and the request's Idempotency-Key. */
export const swapApproval = (quoteId: string | undefined, idempotencyKey: string | null) => ({
  quote_sha256: quoteId === undefined ? null : quoteDigest(quoteId),
  idempotency_key: idempotencyKey,
});

/** What a swap keeps of its quote: the amounts it committed to, its block, and its won value counted by the limit. */
const quotedTerms = (terms: QuoteTerms, inputKrw: bigint) => ({
  source: terms.source,
  target: terms.target,
  direction: terms.direction,
  amountIn: terms.amountIn,
  amountOut: terms.amountOut,
  minimumReceived: terms.minimumReceived,
  maximumSent: terms.maximumSent,
  blockNumber: terms.blockNumber,
  inputKrw: inputKrw.toString(),
});

const plain = (minor: string | bigint, decimals: number) => formatDecimal(BigInt(minor), decimals).replace(/,/g, '');

/**
 * Swaps on an EVM network's DEX, as a signed operation of the person's smart account: prepare takes a quote the person
 * was given (its quoteId, before it expires) and answers one user operation for the owner key to sign — approve the
 * exact input, swap through the network's SwapRouter at the quote's route with its minimum (or maximum), approval back
 * to zero — gas sponsored within the budget; execute takes the signed slots and starts workflow swap-<swapId>, which
 * simulates the swap at the newest block before sending it and refuses it there when the pool moved past the signed
 * minimum (`stale-quote`, no gas spent).
 */
export class SwapService {
  constructor(private readonly deps: SwapServiceDeps) {}

  /** The caller's quote, before its expiresAt (404 for another's or a forged one, 422 stale-quote once expired). */
  private liveQuote(userId: string, quoteId: string) {
    const terms = this.deps.quotes.openQuote(quoteId, userId);
    if (!terms) throw problems.notFound('Quote');
    if (terms.expiresAt <= clock.now())
      throw problems.unprocessable(
        'stale-quote',
        `The quote expired at ${new Date(terms.expiresAt).toISOString()}: ask for a new one`,
      );
    return terms;
  }

  async prepare(userId: string, quoteId: string) {
    const terms = this.liveQuote(userId, quoteId);
    const network = this.deps.networks.get(terms.networkId);
    if (this.deps.networks.solana(terms.networkId))
      throw problems.conflict(
        'no-smart-accounts',
        `${terms.networkId} swaps need no prepare: POST /v1/exchange/swaps with the quoteId and your PIN approving it`,
      );
    if (!network?.dex) {
      throw problems.conflict(
        'no-smart-accounts',
        `${terms.networkId} swaps are not made from a smart account here: none is available on this network yet`,
      );
    }
    const account = await this.deps.orm.em
      .fork()
      .findOne(SmartAccountEntity, { userId, networkId: network.networkId, status: 'deployed' });
    if (!account)
      throw problems.conflict('account-not-deployed', `Deploy your account on ${network.networkId} before swapping`);
    const coin = coinOf(network);
    const addressOf = (symbol: string) =>
      symbol === coin.symbol ? network.dex!.wrappedNative : network.tokens![symbol]!.address;
    const decimalsOf = (symbol: string) => (symbol === coin.symbol ? coin.decimals : network.tokens![symbol]!.decimals);
    const hops = terms.hops.map((h) => ({
      tokenIn: h.tokenIn,
      tokenOut: h.tokenOut,
      tokenInAddress: addressOf(h.tokenIn),
      tokenOutAddress: addressOf(h.tokenOut),
      feeTier: h.feeTier!,
      pool: h.pool,
    }));
    // What it may spend, in won now, within the day's limit (kept with the swap: the day's later swaps count it).
    const inputKrw = await this.deps.limits.valueKrw(terms.source, BigInt(terms.maximumSent), decimalsOf(terms.source));
    await this.deps.limits.assertWithin(userId, inputKrw);
    const swapId = `swap_${randomUUID()}`;
    const expiresAt = new Date(Math.min(terms.expiresAt, clock.now() + this.deps.prepareTtlSeconds * 1000));
    const calls = swapCalls({
      account: account.address,
      router: network.dex.swapRouter,
      wrappedNative: network.dex.wrappedNative,
      hops: hops.map((h) => ({
        tokenIn: { symbol: h.tokenIn, address: h.tokenInAddress, decimals: decimalsOf(h.tokenIn) },
        tokenOut: { symbol: h.tokenOut, address: h.tokenOutAddress, decimals: decimalsOf(h.tokenOut) },
        fee: h.feeTier,
        pool: h.pool,
      })),
      direction: terms.direction,
      maximumIn: BigInt(terms.maximumSent),
      minimumOut: BigInt(terms.minimumReceived),
      coinIn: terms.source === coin.symbol,
      coinOut: terms.target === coin.symbol,
      // As long as its gas is sponsored (a stalled swap may still land): never a sponsored swap the router refuses.
      deadline: Math.floor(sponsoredUntil(expiresAt).getTime() / 1000),
    });
    const provider = this.deps.providers.for(network);
    let built;
    try {
      built = await buildBatchOperation(
        provider,
        this.deps.providers.bundler(network),
        network,
        account.address,
        calls,
      );
    } catch (error) {
      // The router's own words for a minimum or maximum that no longer holds: the pool moved since the quote.
      if (error instanceof UserOperationRejected && /Too little received|Too much requested/.test(error.message))
        throw problems.unprocessable(
          'stale-quote',
          'The pool moved since the quote: the swap would give less than its minimum (or take more than its maximum); ask for a new quote',
        );
      throw error;
    }
    const [operation] = await this.deps.gas.sponsor(
      userId,
      swapId,
      [{ networkId: network.networkId, operation: built }],
      sponsoredUntil(expiresAt),
    );
    const userOpHash = userOperationHash(operation!, network.chainId, network.entryPoint);
    const em = this.deps.orm.em.fork();
    recordPreparedOperation(em, {
      operationId: swapId,
      kind: 'swap',
      userId,
      networkId: network.networkId,
      accountAddress: account.address,
      ownerAddress: account.ownerAddress,
      details: {
        swap: {
          ...quotedTerms(terms, inputKrw),
          hops,
        },
      },
      userOperation: operation!,
      userOpHash,
      expiresAt,
    });
    await em.flush();
    const [sourceDecimals, targetDecimals] = [decimalsOf(terms.source), decimalsOf(terms.target)];
    const text =
      terms.direction === 'exactInput'
        ? `Swap ${plain(terms.amountIn, sourceDecimals)} ${terms.source} for at least ${plain(terms.minimumReceived, targetDecimals)} ${terms.target}`
        : `Swap at most ${plain(terms.maximumSent, sourceDecimals)} ${terms.source} for ${plain(terms.amountOut, targetDecimals)} ${terms.target}`;
    return {
      swapId,
      description: `${text} on ${network.networkId} through Uniswap v3 (account ${account.address}; gas paid by the service)`,
      items: await preparedSlots(this.deps.passkeys, userId, {
        id: swapId,
        owner: account.ownerAddress,
        network,
        userOpHash,
        domain: {
          accountAddress: account.address,
          action: 'swap',
          source: terms.source,
          target: terms.target,
          direction: terms.direction,
          maximumSent: plain(terms.maximumSent, sourceDecimals),
          minimumReceived: plain(terms.minimumReceived, targetDecimals),
          router: network.dex.swapRouter,
          paymaster: network.paymaster,
        },
      }),
    };
  }

  async execute(userId: string, items: SignedSlot[]): Promise<string> {
    const { orm, temporal, taskQueue } = this.deps;
    const op = await executeSingleOperation({ orm, passkeys: this.deps.passkeys }, userId, items, {
      kind: 'swap',
      what: 'swap',
      signer: async (prepared) =>
        (await orm.em.fork().findOneOrFail(SmartAccountEntity, { userId, networkId: prepared.networkId })).ownerAddress,
      // Simulated here before it is claimed (and again by the workflow before it is sent): a swap the pool has moved
      // past is refused while it is still only prepared, so it never stands on its nonce as another's successor.
      beforeClaim: async (prepared) => {
        const network = this.deps.networks.get(prepared.networkId)!;
        try {
          await this.deps.providers.for(network).call({
            from: network.entryPoint,
            to: prepared.accountAddress,
            data: prepared.userOperation.callData!,
            blockTag: 'latest',
          });
        } catch (error) {
          if (!isRevert(error)) throw error;
          throw problems.unprocessable(
            'stale-quote',
            'The pool moved since the quote: the swap would give less than its minimum (or take more than its maximum) now; ask for a new quote',
          );
        }
      },
      // The day's limit again as the swap is claimed (prepared swaps do not count until then), under the user's lock.
      claimGuard: (tx, prepared) =>
        this.deps.limits.assertWithin(userId, BigInt(prepared.details.swap?.inputKrw ?? '0'), tx),
      start: ({ operationId, networkId }) =>
        temporal.workflow.start(swapWorkflow, {
          workflowId: swapWorkflowId(operationId),
          taskQueue,
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          args: [{ swapId: operationId, userId, networkId }],
        }),
    });
    return op.operationId;
  }

  async view(userId: string, swapId: string) {
    const op = await findOperation(this.deps.orm, userId, 'swap', swapId);
    if (op) return this.viewOf(op);
    const solana = await this.deps.orm.em.fork().findOne(SolanaSwapEntity, { swapId, userId });
    if (solana) return this.solanaViewOf(solana);
    throw problems.notFound(`Swap ${swapId}`);
  }

  /**
   * A SOLANA swap: the quote (before it expires), the person's wallet, the day's limit and the balance are checked,
   * then the PIN approving it (`approve`: so a swap that cannot pass costs no PIN attempt); the swap is recorded under
   * the id its Idempotency-Key gives and workflow swap-<swapId> started. A retry with the same key finds the same
   * swap (and starts its workflow if a crash came between), asking for no PIN again.
   */
  async executeSolana(
    userId: string,
    input: { quoteId: string; idempotencyKey: string; swapId: string; approve: () => Promise<unknown> },
  ): Promise<string> {
    const { orm } = this.deps;
    const { swapId } = input;
    const digest = quoteDigest(input.quoteId);
    const recorded = await orm.em.fork().findOne(SolanaSwapEntity, { swapId, userId });
    if (recorded) {
      if (recorded.details.quoteDigest !== digest)
        throw problems.unprocessable(
          'idempotency-key-reused',
          'This Idempotency-Key already executed a swap of another quote: use a new key for a new swap',
        );
      await this.startSolana(recorded);
      return swapId;
    }
    const terms = this.liveQuote(userId, input.quoteId);
    const network = this.deps.networks.solana(terms.networkId);
    if (!network?.dex)
      throw problems.conflict(
        'no-smart-accounts',
        `${terms.networkId} swaps are made from the smart account: POST /v1/exchange/swaps/prepare, then its signed slots`,
      );
    const wallet = await orm.em.fork().findOne(SolanaWalletEntity, { userId });
    if (!wallet) throw problems.conflict('wallet-not-opened', `Open your ${network.networkId} wallet before swapping`);
    const decimalsOf = (symbol: string) => (symbol === 'SOL' ? SOL_DECIMALS : network.tokens![symbol]!.decimals);
    const amountIn = BigInt(terms.amountIn);
    const balance = await this.deps.holdings.balanceOf(userId, network.networkId, terms.source);
    const needed = terms.source === 'SOL' ? amountIn + BigInt(this.deps.solanaMaxFeeLamports) : amountIn;
    if (balance < needed)
      throw problems.unprocessable(
        'insufficient-balance',
        `The swap needs ${plain(needed, decimalsOf(terms.source))} ${terms.source}${terms.source === 'SOL' ? ' (fees included)' : ''}; the wallet holds ${plain(balance, decimalsOf(terms.source))}`,
      );
    const inputKrw = await this.deps.limits.valueKrw(terms.source, amountIn, decimalsOf(terms.source));
    await this.deps.limits.assertWithin(userId, inputKrw);
    await input.approve();
    const now = clock.date();
    const row = {
      swapId,
      userId,
      networkId: network.networkId,
      walletAddress: wallet.address,
      details: {
        ...quotedTerms(terms, inputKrw),
        hops: terms.hops.map((h) => ({ tokenIn: h.tokenIn, tokenOut: h.tokenOut, pool: h.pool })),
        // The quote's slippage, as its minimum implies it.
        slippageBps:
          BigInt(terms.amountOut) === 0n
            ? 0
            : Number(((BigInt(terms.amountOut) - BigInt(terms.minimumReceived)) * 10_000n) / BigInt(terms.amountOut)),
        quoteDigest: digest,
        expiresAt: terms.expiresAt,
      },
      status: 'submitted',
      requestId: null,
      wire: null,
      lastValidBlockHeight: null,
      txHash: null,
      fee: null,
      error: null,
      createdAt: now,
      updatedAt: now,
    } satisfies SolanaSwap;
    try {
      await orm.em.fork().transactional(async (tx) => {
        await this.deps.limits.assertWithin(userId, inputKrw, tx);
        await tx.insert(SolanaSwapEntity, row);
      });
    } catch (error) {
      // The same key at the same moment: that request recorded it (and starts it).
      if (!(error instanceof UniqueConstraintViolationException)) throw error;
      return swapId;
    }
    await this.startSolana(row);
    return swapId;
  }

  private async startSolana(swap: Pick<SolanaSwap, 'swapId' | 'userId' | 'networkId'>): Promise<void> {
    try {
      await this.deps.temporal.workflow.start(solanaSwapWorkflow, {
        workflowId: swapWorkflowId(swap.swapId),
        taskQueue: this.deps.taskQueue,
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        args: [{ swapId: swap.swapId, userId: swap.userId, networkId: swap.networkId }],
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  }

  private solanaViewOf(swap: SolanaSwap) {
    const network = this.deps.networks.solana(swap.networkId);
    return swapView({ ...swap, stallReason: null, replacedBy: null }, swap.details, (symbol) =>
      symbol === 'SOL' ? SOL_DECIMALS : (network?.tokens?.[symbol]?.decimals ?? SOL_DECIMALS),
    );
  }

  private viewOf(op: SignedOperation) {
    const network = this.deps.networks.get(op.networkId);
    const coin = network ? coinOf(network) : { symbol: '', decimals: 18 };
    return swapView({ ...op, swapId: op.operationId, ...progressOf(op) }, op.details.swap!, (symbol) =>
      symbol === coin.symbol ? coin.decimals : (network?.tokens?.[symbol]?.decimals ?? 18),
    );
  }
}

/** A swap as GET /v1/exchange/swaps/{swapId} shows it, on either kind of network. */
function swapView(
  row: {
    swapId: string;
    networkId: string;
    status: string;
    txHash?: string | null;
    error?: string | null;
    stallReason: 'fees-rose' | null;
    replacedBy: string | null;
    createdAt: Date;
    updatedAt: Date;
  },
  swap: Pick<
    SwapDetails,
    | 'source'
    | 'target'
    | 'direction'
    | 'amountIn'
    | 'amountOut'
    | 'minimumReceived'
    | 'maximumSent'
    | 'blockNumber'
    | 'received'
  > & { hops: Array<{ tokenOut: string }> },
  decimalsOf: (symbol: string) => number,
) {
  const [inDecimals, outDecimals] = [decimalsOf(swap.source), decimalsOf(swap.target)];
  return {
    swapId: row.swapId,
    networkId: row.networkId,
    source: swap.source,
    target: swap.target,
    direction: swap.direction,
    quoted: {
      amountIn: plain(swap.amountIn, inDecimals),
      amountOut: plain(swap.amountOut, outDecimals),
      minimumReceived: plain(swap.minimumReceived, outDecimals),
      maximumSent: plain(swap.maximumSent, inDecimals),
      blockNumber: swap.blockNumber,
    },
    route: [swap.source, ...swap.hops.map((h) => h.tokenOut)],
    status: row.status,
    received: swap.received
      ? { amountIn: plain(swap.received.amountIn, inDecimals), amountOut: plain(swap.received.amountOut, outDecimals) }
      : null,
    txHash: row.txHash ?? null,
    error: row.error ?? null,
    stallReason: row.stallReason,
    replacedBy: row.replacedBy,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
