import type { Orm } from '../db/orm';
import { TransferEntity } from '../db/entities';
import type { Bundlers } from './chain/bundlers';
import { deserializeOperation } from './chain/smart-account';
import { submitOnce } from './chain/submit-once';
import type { TransferOutcome } from '../workflows/messages';

export interface TransferActivityDeps { orm: Orm; bundlers: Bundlers }

/** The chain side of a transfer; every attempt finds what an earlier one sent (see submitOnce). */
export const createTransferActivities = ({ orm, bundlers }: TransferActivityDeps) => ({
  async submitTransfer({ transferId }: { transferId: string }): Promise<{ success: boolean; txHash: string | null; fee: string | null }> {
    const em = orm.em.fork();
    const transfer = await em.findOneOrFail(TransferEntity, { transferId });
    const bundler = bundlers.for(transfer.networkId);
    const operation = deserializeOperation(transfer.userOperation);
    const { txHash } = await submitOnce({
      bundler, beneficiary: bundlers.beneficiary, operation, recordedTxHash: transfer.txHash,
      // Each transfer has its own nonce key, so its operation has executed exactly when that key's sequence moved on.
      alreadyDone: async () => (await bundler.nonceOf(operation.sender, operation.nonce >> 64n)) > operation.nonce,
      recordTxHash: async (hash) => { transfer.txHash = hash; await em.flush(); },
    });
    const hash = txHash ?? transfer.txHash;
    if (!hash) return { success: true, txHash: null, fee: null };
    const outcome = await bundler.waitForOutcome(hash);
    return { success: outcome.success, txHash: hash, fee: outcome.actualGasCost.toString() };
  },

  async finishTransfer(input: { transferId: string } & TransferOutcome): Promise<void> {
    await orm.em.fork().nativeUpdate(TransferEntity, { transferId: input.transferId, status: 'processing' }, {
      status: input.status, txHash: input.txHash, fee: input.fee, error: input.error ?? null,
    });
  },
});

export type TransferActivities = ReturnType<typeof createTransferActivities>;
