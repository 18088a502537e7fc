import { Interface } from 'ethers';
import type { Orm } from '../db/orm';
import { SignedOperationEntity } from '../db/entities';
import { appendEvent } from '../db/events';
import type { NetworkRegistry } from '../platform/networks';
import type { ChainProviders } from '../integrations/evm/smart-account';
import { isRevert } from '../integrations/dex/uniswap-v3';
import { swapOutcome } from '../integrations/dex/uniswap-v3-swap';
import { entryPointNonce } from '../integrations/evm/entry-point';

export interface SwapActivityDeps {
  orm: Orm;
  networks: NetworkRegistry;
  providers: ChainProviders;
}

const ENTRY_POINT = new Interface([
  'event UserOperationEvent(bytes32 indexed userOpHash, address indexed sender, address indexed paymaster, uint256 nonce, bool success, uint256 actualGasCost, uint256 actualGasUsed)',
  'event BeforeExecution()',
]);
const USER_OPERATION_EVENT = ENTRY_POINT.getEvent('UserOperationEvent')!.topicHash;
const BEFORE_EXECUTION = ENTRY_POINT.getEvent('BeforeExecution')!.topicHash;

/** A revert's reason as the router gives it ("Too little received"), or what the node said. */
const reasonOf = (error: unknown): string => {
  const e = error as { reason?: string | null; shortMessage?: string; message?: string };
  return e.reason ?? e.shortMessage ?? e.message ?? 'reverted';
};

export const createSwapActivities = ({ orm, networks, providers }: SwapActivityDeps) => ({
  /**
   * The swap's calls as the EntryPoint will make them (the account's executeBatch, from the EntryPoint) at the newest
   * block, before anything is sent: a revert there (the pool moved past the signed minimum, the deadline passed, the
   * balance went) refuses the swap without spending gas. A node failure is retried.
   */
  async simulateSwap({ swapId }: { swapId: string }): Promise<{ refused: string | null }> {
    const op = await orm.em.fork().findOneOrFail(SignedOperationEntity, { operationId: swapId });
    const network = networks.get(op.networkId)!;
    const provider = providers.for(network);
    // Once the operation's nonce is used (by this very swap, sent before a crash, or by another operation), a
    // simulation would read the state after it: the submit step finds what happened by the userOpHash instead.
    const next = await entryPointNonce(provider, network.entryPoint, op.accountAddress, 0n);
    if (next > BigInt(op.userOperation.nonce!)) return { refused: null };
    try {
      await provider.call({
        from: network.entryPoint,
        to: op.accountAddress,
        data: op.userOperation.callData!,
        blockTag: 'latest',
      });
      return { refused: null };
    } catch (error) {
      if (!isRevert(error)) throw error;
      return {
        refused: `stale-quote: the swap would revert at the newest block (${reasonOf(error)}); nothing was sent`,
      };
    }
  },

  /**
   * Records the swap's outcome once, with its event: completed with what it really took and gave (the pools' Swap
   * events among its own logs in the bundle), or failed with why.
   */
  async finishSwap(input: { swapId: string; status: 'completed' | 'failed'; txHash?: string | null; error?: string }) {
    const read = orm.em.fork();
    const current = await read.findOneOrFail(SignedOperationEntity, { operationId: input.swapId });
    let received: { amountIn: bigint; amountOut: bigint } | undefined;
    const txHash = input.txHash ?? current.txHash ?? null;
    if (input.status === 'completed' && txHash) {
      const network = networks.get(current.networkId)!;
      const receipt = await providers.for(network).getTransactionReceipt(txHash);
      if (!receipt) throw new Error(`the swap's transaction ${txHash} has no receipt yet`);
      // This operation's own logs: after the previous operation's UserOperationEvent (or BeforeExecution), up to its own.
      // Only the EntryPoint's own events delimit operations: another contract can emit the same topics.
      const logs = [...receipt.logs];
      const fromEntryPoint = (l: (typeof logs)[number], topic: string) =>
        l.address.toLowerCase() === network.entryPoint.toLowerCase() && l.topics[0] === topic;
      const end = logs.findIndex(
        (l) =>
          fromEntryPoint(l, USER_OPERATION_EVENT) && l.topics[1]?.toLowerCase() === current.userOpHash.toLowerCase(),
      );
      let start = end;
      while (
        start > 0 &&
        !fromEntryPoint(logs[start - 1]!, USER_OPERATION_EVENT) &&
        !fromEntryPoint(logs[start - 1]!, BEFORE_EXECUTION)
      )
        start -= 1;
      const swap = current.details.swap!;
      received = swapOutcome(
        swap.hops.map((h) => ({
          pool: h.pool,
          tokenIn: { address: h.tokenInAddress },
          tokenOut: { address: h.tokenOutAddress },
        })),
        end < 0 ? [] : logs.slice(start, end),
      );
    }
    await orm.em.fork().transactional(async (em) => {
      const op = await em.findOneOrFail(SignedOperationEntity, { operationId: input.swapId });
      if (op.status === input.status) return;
      const subject = { opId: op.operationId, networkId: op.networkId, accountAddress: op.accountAddress };
      const swap = op.details.swap!;
      if (input.status === 'completed') {
        // Without the pools' events nothing is claimed as received: the swap shows its quote only, and says why.
        Object.assign(op, {
          status: 'completed',
          txHash,
          error: received ? null : "the swap ran, but its pools' events were not found in its transaction",
          stallReason: null,
          details: {
            ...op.details,
            swap: {
              ...swap,
              ...(received
                ? { received: { amountIn: received.amountIn.toString(), amountOut: received.amountOut.toString() } }
                : {}),
            },
          },
        });
        await appendEvent(em, {
          type: 'swap.completed',
          resourceId: op.operationId,
          userId: op.userId,
          data: {
            ...subject,
            txHash: txHash ?? '',
            source: swap.source,
            target: swap.target,
            amountIn: received ? received.amountIn.toString() : '',
            amountOut: received ? received.amountOut.toString() : '',
          },
        });
      } else {
        Object.assign(op, { status: 'failed', error: input.error ?? 'failed' });
        await appendEvent(em, {
          type: 'swap.failed',
          resourceId: op.operationId,
          userId: op.userId,
          data: { ...subject, error: input.error ?? 'failed' },
        });
      }
    });
  },
});

export type SwapActivities = ReturnType<typeof createSwapActivities>;
