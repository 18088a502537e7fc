import { Context } from '@temporalio/activity';
import type { Orm } from '../db/orm';
import { SolanaSwapEntity, type SolanaSwap } from '../db/entities';
import { appendEvent } from '../db/events';
import type { NetworkRegistry, SolanaNetwork } from '../platform/networks';
import type { SolanaWallets } from '../integrations/custody/key-vault';
import {
  addressBytes,
  readTransaction,
  signAsParty,
  type AccountState,
  type SolanaChains,
} from '../integrations/solana';
import { WSOL_MINT, type JupiterOrder, type JupiterSwapApi } from '../integrations/dex/jupiter';
import { swapEffectRefusal } from '../integrations/dex/solana-swap-check';
import { userIsActive } from './account';
import { clock } from '../platform/clock';

export interface SolanaSwapActivityDeps {
  orm: Orm;
  networks: NetworkRegistry;
  solanaChains: SolanaChains;
  solanaWallets: SolanaWallets;
  /** Jupiter's Swap API (JUPITER_API_KEY); without it no SOLANA swap is signed. */
  jupiter?: JupiterSwapApi;
  /** SOLANA_SWAP_MAX_FEE_LAMPORTS: the most a swap's transaction may take in fees beyond its input. */
  solanaSwapMaxFeeLamports: number;
}

const mintOf = (network: SolanaNetwork, symbol: string) =>
  symbol === 'SOL' ? WSOL_MINT : network.tokens![symbol]!.mint;

const sameStates = (a: AccountState[], b: AccountState[]) =>
  a.every((x, i) => {
    const y = b[i];
    if (!x || !y) return x === y;
    return x.lamports === y.lamports && x.owner === y.owner && Buffer.compare(x.data, y.data) === 0;
  });

export const createSolanaSwapActivities = (deps: SolanaSwapActivityDeps) => {
  const { orm, networks } = deps;

  /**
   * The person's accounts a swap may touch: the wallet, every token account they hold (either token program, any mint),
   * and the associated token accounts of wrapped SOL and every configured token (which the swap may create).
   */
  const ownAccounts = async (network: SolanaNetwork, wallet: string) => {
    const chain = deps.solanaChains.for(network);
    const accounts = new Map<string, string | null>([[wallet, null]]);
    for (const held of await chain.tokenAccountsOwnedBy(wallet)) accounts.set(held.address, held.mint);
    const mints = [...new Set([WSOL_MINT, ...Object.values(network.tokens ?? {}).map((t) => t.mint)])];
    for (const mint of mints) accounts.set(await chain.tokenAccountOf(wallet, mint), mint);
    return [...accounts].map(([address, mint]) => ({ address, mint }));
  };

  /** Jupiter's order for the swap, held to the quote's minimum: its threshold (enforced on chain) no looser. */
  const orderFor = async (
    swap: SolanaSwap,
    network: SolanaNetwork,
  ): Promise<{ order: JupiterOrder } | { refused: string }> => {
    const d = swap.details;
    const minimum = BigInt(d.minimumReceived);
    const ask = (slippageBps: number) =>
      deps.jupiter!.order({
        inputMint: mintOf(network, d.source),
        outputMint: mintOf(network, d.target),
        amount: BigInt(d.amountIn),
        slippageBps,
        taker: swap.walletAddress,
      });
    let answer = await ask(d.slippageBps);
    for (let attempt = 0; ; attempt += 1) {
      if (answer.kind === 'refused') return { refused: `stale-quote: Jupiter has no route now (${answer.error})` };
      const out = BigInt(answer.order.outAmount);
      if (out < minimum)
        return {
          refused: `stale-quote: Jupiter's order now gives ${out}, less than the quote's minimum of ${minimum}; nothing was signed`,
        };
      if (BigInt(answer.order.otherAmountThreshold) >= minimum) return { order: answer.order };
      // The price moved within the quote's slippage: ask again at the slippage that keeps the quote's minimum.
      if (attempt === 1)
        return { refused: `stale-quote: Jupiter's order will not guarantee the quote's minimum of ${minimum}` };
      answer = await ask(Number(((out - minimum) * 10_000n) / out));
    }
  };

  const finish = async (
    swapId: string,
    outcome:
      | { status: 'completed'; received: { amountIn: bigint; amountOut: bigint } | null; fee: string | null }
      | { status: 'failed'; error: string; fee?: string | null },
  ) =>
    orm.em.fork().transactional(async (em) => {
      const swap = await em.findOneOrFail(SolanaSwapEntity, { swapId });
      if (swap.status !== 'submitted') return;
      const subject = { opId: swapId, networkId: swap.networkId, accountAddress: swap.walletAddress };
      if (outcome.status === 'completed') {
        const { received } = outcome;
        Object.assign(swap, {
          status: 'completed',
          fee: outcome.fee,
          error: received ? null : 'the swap landed, but the cluster shows no balances for its transaction',
          details: {
            ...swap.details,
            ...(received
              ? { received: { amountIn: received.amountIn.toString(), amountOut: received.amountOut.toString() } }
              : {}),
          },
        });
        await appendEvent(em, {
          type: 'swap.completed',
          resourceId: swapId,
          userId: swap.userId,
          data: {
            ...subject,
            txHash: swap.txHash ?? '',
            source: swap.details.source,
            target: swap.details.target,
            amountIn: received ? received.amountIn.toString() : '',
            amountOut: received ? received.amountOut.toString() : '',
          },
        });
      } else {
        Object.assign(swap, { status: 'failed', error: outcome.error, fee: outcome.fee ?? swap.fee });
        await appendEvent(em, {
          type: 'swap.failed',
          resourceId: swapId,
          userId: swap.userId,
          data: { ...subject, error: outcome.error },
        });
      }
    });

  return {
    /**
     * Asks Jupiter for the swap's transaction (the wallet as taker), signs it with the custodial key, simulates the
     * signed bytes and keeps them only if their effect is the swap's (integrations/dex/solana-swap-check.ts); then
     * they are kept before anything is sent, so every retry sends the same bytes. A retry finds them and stops.
     * Refused (nothing signed is kept, nothing sent): no route, a price past the quote's minimum, a transaction that
     * would fail or does more than the swap.
     */
    async signSolanaSwap({ swapId }: { swapId: string }): Promise<{ refused: string | null }> {
      const heartbeat = () => Context.current().heartbeat();
      const em = orm.em.fork();
      const swap = await em.findOneOrFail(SolanaSwapEntity, { swapId });
      if (swap.wire || swap.status !== 'submitted') return { refused: null };
      if (!(await userIsActive(orm, swap.userId))) return { refused: 'the account is no longer active' };
      const d = swap.details;
      // A swap that could not be signed while its quote held (the worker was down) is not made at a later price.
      if (d.expiresAt !== undefined && clock.now() > d.expiresAt)
        return { refused: 'stale-quote: the quote expired before the swap could be signed; nothing was sent' };
      const network = networks.solana(swap.networkId);
      if (!network?.dex || !deps.jupiter)
        return { refused: `${swap.networkId} has no exchange in this worker (NETWORKS dex, JUPITER_API_KEY)` };
      const key = await deps.solanaWallets.keyOf(swap.userId);
      if (!key || key.address !== swap.walletAddress) return { refused: "the person's Solana wallet is not this one" };
      heartbeat();
      const ordered = await orderFor(swap, network);
      if ('refused' in ordered) return ordered;
      const { order } = ordered;
      if (!order.transaction)
        return {
          refused: `Jupiter built no transaction (${order.errorMessage ?? `errorCode ${order.errorCode ?? 'none'}`})`,
        };
      const chain = deps.solanaChains.for(network);
      heartbeat();
      const read = await readTransaction(order.transaction);
      // Of the person's accounts, those the transaction can touch (the rest cannot change; and a cluster answers a
      // simulation's accounts only up to the transaction's own number of them).
      const referenced = await chain.referencedAccounts(read);
      const own = (await ownAccounts(network, swap.walletAddress)).filter(
        (a) => a.mint === null || referenced.has(a.address),
      );
      const addresses = own.map((a) => a.address);
      // Nothing is signed before the check: the simulation runs on the unsigned message, at or after the slot the
      // state before it was read at; read again after, the state must not have moved meanwhile.
      const before = await chain.accountStates(addresses);
      const simulated = await chain.simulateWithAccounts(order.transaction, addresses, before.slot);
      const again = await chain.accountStates(addresses);
      if (!sameStates(before.states, again.states))
        throw new Error("the person's accounts changed while the swap was checked; checking again");
      heartbeat();
      if (simulated.err !== null)
        return { refused: `the swap would fail on chain now (${simulated.err}); nothing was signed` };
      const refusal = swapEffectRefusal(
        {
          wallet: swap.walletAddress,
          transaction: read,
          allowedPrograms: network.dex.programs,
          aggregatorProgram: network.dex.aggregatorProgram,
          source: { mint: d.source === 'SOL' ? null : mintOf(network, d.source), amount: BigInt(d.amountIn) },
          target: { mint: d.target === 'SOL' ? null : mintOf(network, d.target), minimum: BigInt(d.minimumReceived) },
          maxFeeLamports: BigInt(deps.solanaSwapMaxFeeLamports),
          wrappedSolMint: WSOL_MINT,
          accounts: own.map((a, i) => ({ ...a, before: before.states[i]!, after: simulated.accounts[i]! })),
        },
        await addressBytes(swap.walletAddress),
      );
      if (refusal) return { refused: `unexpected-effect: the transaction Jupiter built was not signed: ${refusal}` };
      const signed = await signAsParty(order.transaction, key.seed);
      // Its blockhash is older than the newest, so the newest's last valid height bounds it: until then the bytes are
      // sent again, and only past it is the swap called expired (Jupiter's own figure is not relied on).
      const lastValid = (
        await (await chain.rpc()).getLatestBlockhash({ commitment: 'confirmed' }).send()
      ).value.lastValidBlockHeight.toString();
      await em.nativeUpdate(
        SolanaSwapEntity,
        { swapId, wire: null },
        { wire: signed.wire, txHash: signed.signature, requestId: order.requestId, lastValidBlockHeight: lastValid },
      );
      return { refused: null };
    },

    /**
     * Sends the kept bytes until they land or can no longer (their blockhash expired: nothing was swapped), then
     * records the outcome with what the swap really took and gave, from the transaction's balances on chain.
     */
    async sendSolanaSwap({ swapId }: { swapId: string }): Promise<{ status: 'completed' | 'failed'; error?: string }> {
      const swap = await orm.em.fork().findOneOrFail(SolanaSwapEntity, { swapId });
      if (swap.status !== 'submitted') return { status: swap.status, ...(swap.error ? { error: swap.error } : {}) };
      const network = networks.solana(swap.networkId)!;
      const chain = deps.solanaChains.for(network);
      const outcome = await chain.sendUntilFinal(
        { wire: swap.wire!, signature: swap.txHash!, lastValidBlockHeight: swap.lastValidBlockHeight! },
        { onPoll: () => Context.current().heartbeat() },
      );
      if (!outcome.landed || !outcome.success) {
        const error = outcome.error ?? 'the swap failed on chain';
        // (Expired: its blockhash is past the newest's last valid height read when it was signed: it can never land.)
        await finish(swapId, { status: 'failed', error, fee: outcome.landed ? outcome.fee : null });
        return { status: 'failed', error };
      }
      const own = (await ownAccounts(network, swap.walletAddress)).map((a) => a.address);
      const changes = await chain.balanceChanges(swap.txHash!, swap.walletAddress, own);
      // Landed, so the cluster has its balances: none yet is a node behind (retried), not a swap without an outcome.
      if (!changes) throw new Error(`the cluster shows no balances for ${swap.txHash} yet`);
      const d = swap.details;
      const received = changes
        ? {
            amountIn:
              d.source === 'SOL'
                ? -changes.lamports - changes.fee
                : -(changes.tokens.get(mintOf(network, d.source)) ?? 0n),
            amountOut:
              d.target === 'SOL'
                ? changes.lamports + changes.fee
                : (changes.tokens.get(mintOf(network, d.target)) ?? 0n),
          }
        : null;
      await finish(swapId, { status: 'completed', received, fee: outcome.fee });
      return { status: 'completed' };
    },

    /** Records a swap refused before anything was sent (failed, with why), once, with its event. */
    async failSolanaSwap({ swapId, error }: { swapId: string; error: string }): Promise<void> {
      await finish(swapId, { status: 'failed', error });
    },
  };
};

export type SolanaSwapActivities = ReturnType<typeof createSolanaSwapActivities>;
