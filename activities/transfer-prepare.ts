import type { Orm } from '../db/orm';
import { transferById } from '../db/transfer-changes';
import type { ComplianceActivities } from './compliance';
import type { TransferActivities } from './transfer';

/**
 * A transfer's steps before it is sent, as one activity (transfers of version 3 on): the last sanctions screening,
 * then signing (the screening runs beside the signing's reads; nothing is sponsored or signed before it passed). One
 * local activity where there were two, so one activation of the workflow fewer per transfer. A retry that finds the
 * transfer signed leaves it (it was screened before it was signed).
 */
export const createTransferPreparationActivities = (
  { orm }: { orm: Orm },
  { screenTransferRecipient }: Pick<ComplianceActivities, 'screenTransferRecipient'>,
  { signTransfer }: Pick<TransferActivities, 'signTransfer'>,
) => ({
  async prepareTransfer({ transferId }: { transferId: string }): Promise<void> {
    // One read of the row for both steps: screening reads its recipient, signing the rest.
    const transfer = await transferById(orm.em.fork(), transferId);
    if (transfer.userOperation || transfer.solanaTransaction?.wire) return;
    // The screening beside the signing's reads (the key, the nonce lane, the fees, the nonce, the bundler's estimate):
    // nothing is sponsored, signed or stored before it passed (signTransfer waits for it).
    await signTransfer({ transferId }, transfer, screenTransferRecipient({ transferId }, transfer));
  },
});

export type TransferPreparationActivities = ReturnType<typeof createTransferPreparationActivities>;
