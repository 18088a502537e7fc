import type { Orm } from '../db/orm';
import { DidKeyOperationEntity } from '../db/entities';
import type { Bundlers } from '../integrations/evm/bundlers';
import { deserializeOperation, type ChainProviders } from '../integrations/evm/smart-account';
import { submitOnce } from './submit-once';

export interface DidKeyActivityDeps { orm: Orm; providers: ChainProviders; bundlers: Bundlers }

/** Chain and storage side of adding a DID key; submitDidKey is safe to retry at any point (see submitOnce). */
export const createDidKeyActivities = ({ orm, bundlers }: DidKeyActivityDeps) => ({
  async submitDidKey({ opId }: { opId: string }): Promise<{ txHash: string | null }> {
    const em = orm.em.fork();
    const op = await em.findOneOrFail(DidKeyOperationEntity, { opId });
    const operation = deserializeOperation(op.userOperation);
    return submitOnce({
      bundler: bundlers.for(op.networkId), beneficiary: bundlers.beneficiary, operation, recordedTxHash: op.txHash,
      // Attributes can be set again, so the chain shows no unique effect: a transaction that landed is found through
      // its recorded hash, and an operation whose nonce was used otherwise is refused by the EntryPoint (AA25).
      alreadyDone: async () => false,
      recordTxHash: async (hash) => { op.txHash = hash; await em.flush(); },
    });
  },

  async finishDidKey(input: { opId: string; status: 'completed' | 'failed'; txHash?: string | null; error?: string }): Promise<void> {
    const em = orm.em.fork();
    const op = await em.findOneOrFail(DidKeyOperationEntity, { opId: input.opId });
    Object.assign(op, { status: input.status, txHash: input.txHash ?? op.txHash ?? null, error: input.error ?? null });
    await em.flush();
  },
});

export type DidKeyActivities = ReturnType<typeof createDidKeyActivities>;
