import { ApplicationFailure, Context } from '@temporalio/activity';
import { heartbeat } from './heartbeat';
import type { Orm } from '../db/orm';
import { transferById } from '../db/transfer-changes';
import type { Transfer } from '../db/entities';
import type { ComplianceActivities } from './compliance';
import type { SubmittedTransfer, TransferActivities } from './transfer';

/**
 * The attempts the steps before sending get in sendTransfer, as the local activity that ran them had (the screening's
 * retries: a provider or list that cannot answer): past them, the transfer fails with their last refusal.
 */
export const PREPARE_ATTEMPTS = 8;
/** How often sendTransfer heartbeats while it prepares (its activity's heartbeat timeout is 10 seconds; none locally). */
const PREPARE_HEARTBEAT_MS = 2_000;

/** A transfer's steps up to sending it: prepareTransfer (a local activity, version 3) and sendTransfer (version 4). */
export const createTransferPreparationActivities = (
  { orm }: { orm: Orm },
  { screenTransferRecipient }: Pick<ComplianceActivities, 'screenTransferRecipient'>,
  { signTransfer, submitTransfer }: Pick<TransferActivities, 'signTransfer' | 'submitTransfer'>,
) => {
  /**
   * A transfer's steps before it is sent, as one activity (transfers of version 3 on): the last sanctions screening,
   * then signing (the screening runs beside the signing's reads; nothing is sponsored or signed before it passed). One
   * local activity where there were two, so one activation of the workflow fewer per transfer. A retry that finds the
   * transfer signed leaves it (it was screened before it was signed).
   */
  const prepareTransfer = async (
    { transferId }: { transferId: string },
    /** Told when the row was read unsigned, before the screening and the signing start. */
    unsigned?: () => void,
    /** Told the row as it stands once signed (read signed, or signed by this call), for the submission that follows. */
    signed?: (row: Transfer) => void,
  ): Promise<void> => {
    // One read of the row for both steps: screening reads its recipient, signing the rest.
    const transfer = await transferById(orm.em.fork(), transferId);
    if (transfer.userOperation || transfer.solanaTransaction?.wire) {
      signed?.(transfer);
      return;
    }
    unsigned?.();
    // The screening beside the signing's reads (the key, the nonce lane, the fees, the nonce, the bundler's estimate):
    // nothing is sponsored, signed or stored before it passed (signTransfer waits for it).
    await signTransfer({ transferId }, transfer, screenTransferRecipient({ transferId }, transfer), signed);
  };
  return {
    prepareTransfer,

    /**
     * A transfer from its last screening to its outcome, as one activity (transfers of version 4 on): prepareTransfer,
     * then submitTransfer with the outcome recorded. No local activity before it, so the workflow has two activations
     * per transfer, as a workflow with one activity has. A retry finds what an earlier attempt did: a transfer signed
     * is neither screened nor signed again (an operation already handed over is never refused afterwards by a list
     * that changed since), and the operation's hash makes sending it again safe (submitOnce).
     *
     * The steps before sending keep the attempts the local activity gave them (PREPARE_ATTEMPTS): past them the
     * failure of a transfer still unsigned is final, so a screening provider that cannot answer fails the transfer
     * after about three minutes (the chain submission's backoff), instead of the submission's thirty attempts.
     */
    async sendTransfer({ transferId }: { transferId: string }): Promise<SubmittedTransfer> {
      const context = Context.current();
      // Only while it takes long: a heartbeat is a call to the Temporal server (and a write there), and the
      // preparation takes well under a second; the submission heartbeats as it waits (submitOnce).
      const beating = setInterval(heartbeat, PREPARE_HEARTBEAT_MS);
      // Only a failure of the screening or the signing of a transfer read unsigned in this attempt is made final: a
      // transfer an earlier attempt signed may be handed over already, and what fails then (its row's read) stays
      // retryable, as the submission's own failures are (the workflow holds it for review, never records it failed).
      let unsigned = false;
      // The row as this attempt read or signed it: the submission does not read it again (one statement fewer).
      let known: Transfer | undefined;
      try {
        await prepareTransfer(
          { transferId },
          () => (unsigned = true),
          (row) => (known = row),
        );
      } catch (error) {
        if (
          !unsigned ||
          context.info.attempt < PREPARE_ATTEMPTS ||
          (error instanceof ApplicationFailure && error.nonRetryable)
        )
          throw error;
        throw ApplicationFailure.create({
          nonRetryable: true,
          message: (error as Error).message,
          ...(error instanceof ApplicationFailure
            ? { type: error.type ?? undefined, details: error.details ?? undefined }
            : {}),
          cause: error as Error,
        });
      } finally {
        clearInterval(beating);
      }
      return submitTransfer({ transferId, record: true }, known);
    },
  };
};

export type TransferPreparationActivities = ReturnType<typeof createTransferPreparationActivities>;
