import { ApplicationFailure } from '@temporalio/activity';
import type { Orm } from '../db/orm';
import {
  ComplianceCaseEntity,
  PayoutEntity,
  PinApprovalEntity,
  TransferEntity,
  WebauthnChallengeEntity,
} from '../db/entities';
import { changeTransfer, transferById } from '../db/transfer-changes';
import { TransferFailure } from '../platform/failures';
import { clock } from '../platform/clock';

export interface HousekeepingActivityDeps {
  orm: Orm;
}

/**
 * How long an expired WebAuthn challenge is kept: while it is, a late answer to it is told it expired (410
 * challenge-expired) rather than that it is unknown (404).
 */
export const EXPIRED_CHALLENGE_KEPT_SECONDS = 3600;

/** How old an unfinished payout must be before the sweep looks for its workflow (its request has long answered). */
export const UNSTARTED_PAYOUT_SECONDS = 120;

/**
 * How old an unsigned transfer must be before the sweep looks for its workflow: the request that recorded it started
 * the workflow right after, or answered 5xx (a retry with its Idempotency-Key starts it then).
 */
export const UNSTARTED_TRANSFER_SECONDS = 120;

/** How many payouts the sweep looks at per activity call (it pages through all of them). */
export const UNSTARTED_PAYOUT_PAGE = 100;

/** How many transfers the sweep looks at per activity call (it pages through all of them). */
export const UNSTARTED_TRANSFER_PAGE = 100;

/** Why the sweep failed a transfer, as its `error` and its transfer.failed event say. */
export const UNSTARTED_TRANSFER_ERROR =
  'no workflow ran this transfer (its request failed before starting one and was not retried): nothing was signed or sent';

/** Rows past their use, deleted on the worker's housekeeping schedule (worker/schedules.ts). */
export const createHousekeepingActivities = ({ orm }: HousekeepingActivityDeps) => ({
  /**
   * Deletes the WebAuthn challenges (passkey registration and approval options) that expired more than
   * EXPIRED_CHALLENGE_KEPT_SECONDS ago, used or not: a challenge proves nothing once expired. Answers how many, and
   * how many used PIN approvals past their expiry it deleted too (kept while their JWE could be fresh, to refuse it a
   * second time; past that the JWE's age refuses it: api/pin/service.ts). The api deleted those on every approval.
   */
  async deleteExpiredChallenges(): Promise<{ deleted: number; pinApprovalsDeleted: number }> {
    const before = new Date(clock.now() - EXPIRED_CHALLENGE_KEPT_SECONDS * 1000);
    const deleted = await orm.em.fork().nativeDelete(WebauthnChallengeEntity, { expiresAt: { $lt: before } });
    // eslint-disable-next-line no-restricted-syntax -- real time, as the approvals' expiry (the JWE's iat is real time)
    const pinApprovalsDeleted = await orm.em.fork().nativeDelete(PinApprovalEntity, { expiresAt: { $lt: new Date() } });
    return { deleted, pinApprovalsDeleted };
  },

  /**
   * Payouts not final that were accepted more than UNSTARTED_PAYOUT_SECONDS ago, oldest first (at most 100): the
   * housekeeping workflow starts the workflow of each one that has none (the others answer that theirs runs). Sweeps
   * started before the patch housekeeping-payout-pages ask this; later ones page with unstartedPayoutPage.
   */
  async unstartedPayoutCandidates(): Promise<Array<{ payoutId: string; userId: string }>> {
    const before = new Date(clock.now() - UNSTARTED_PAYOUT_SECONDS * 1000);
    const payouts = await orm.em
      .fork()
      .find(
        PayoutEntity,
        { status: { $in: ['processing', 'needs_review'] }, createdAt: { $lt: before } },
        { fields: ['payoutId', 'userId'], orderBy: { createdAt: 'asc' }, limit: 100 },
      );
    return payouts.map((p) => ({ payoutId: p.payoutId, userId: p.userId }));
  },

  /**
   * unstartedPayoutCandidates by pages: by payout id, UNSTARTED_PAYOUT_PAGE at a time after `after`; `next` is the
   * page's last id while there may be more. The sweep pages through them all (up to its limit a run), so payouts that
   * wait long with a workflow of their own (held for an operator, a bank in doubt) do not keep a lost one from its
   * workflow: with the first hundred alone, a hundred such payouts older than it did, for as long as they waited.
   */
  async unstartedPayoutPage(input: {
    after?: string;
  }): Promise<{ payouts: Array<{ payoutId: string; userId: string }>; next: string | null }> {
    const before = new Date(clock.now() - UNSTARTED_PAYOUT_SECONDS * 1000);
    const payouts = await orm.em.fork().find(
      PayoutEntity,
      {
        status: { $in: ['processing', 'needs_review'] },
        createdAt: { $lt: before },
        ...(input.after !== undefined ? { payoutId: { $gt: input.after } } : {}),
      },
      { fields: ['payoutId', 'userId'], orderBy: { payoutId: 'asc' }, limit: UNSTARTED_PAYOUT_PAGE },
    );
    return {
      payouts: payouts.map((p) => ({ payoutId: p.payoutId, userId: p.userId })),
      next: payouts.length === UNSTARTED_PAYOUT_PAGE ? payouts.at(-1)!.payoutId : null,
    };
  },

  /**
   * Transfers recorded more than UNSTARTED_TRANSFER_SECONDS ago that were never signed (held for review, or processing
   * with neither a user operation's hash nor a transaction's): the housekeeping workflow fails each one that has no
   * workflow (the others answer that theirs runs or ran; a held one with a compliance case is left out, its workflow
   * opened the case). By transfer id, UNSTARTED_TRANSFER_PAGE at a time after `after`; `next` is the page's last id
   * while there may be more.
   */
  async unstartedTransferCandidates(input: { after?: string }): Promise<{
    transfers: Array<{ transferId: string; userId: string; networkId: string }>;
    next: string | null;
  }> {
    const before = new Date(clock.now() - UNSTARTED_TRANSFER_SECONDS * 1000);
    const em = orm.em.fork();
    const transfers = await em.find(
      TransferEntity,
      {
        status: { $in: ['held_for_review', 'processing'] },
        userOpHash: null,
        txHash: null,
        createdAt: { $lt: before },
        ...(input.after !== undefined ? { transferId: { $gt: input.after } } : {}),
      },
      {
        fields: ['transferId', 'userId', 'networkId', 'status'],
        orderBy: { transferId: 'asc' },
        limit: UNSTARTED_TRANSFER_PAGE,
      },
    );
    // A held transfer with a compliance case has a workflow: it opened the case (and waits for the operator).
    const held = transfers.filter((t) => t.status === 'held_for_review').map((t) => t.transferId);
    const reviewed = new Set(
      held.length === 0
        ? []
        : (await em.find(ComplianceCaseEntity, { transferId: { $in: held } }, { fields: ['transferId'] })).map(
            (c) => c.transferId,
          ),
    );
    return {
      transfers: transfers
        .filter((t) => !reviewed.has(t.transferId))
        .map((t) => ({ transferId: t.transferId, userId: t.userId, networkId: t.networkId })),
      next: transfers.length === UNSTARTED_TRANSFER_PAGE ? transfers.at(-1)!.transferId : null,
    };
  },

  /**
   * Fails a transfer whose workflow never started, run by the workflow the sweep starts under the transfer's own
   * workflow id (so no request's retry can start it meanwhile): its funds and its nonce lane are free again and it gets
   * its transfer.failed event. One already failed answers as it is; one signed, sent or final is refused (not
   * retried): a workflow did run it, and what it sent is the chain's to say.
   */
  async failUnstartedTransfer(input: { transferId: string }): Promise<{ error: string }> {
    const em = orm.em.fork();
    const transfer = await transferById(em, input.transferId);
    if (transfer.status === 'failed') return { error: transfer.error ?? UNSTARTED_TRANSFER_ERROR };
    if (transfer.userOpHash || transfer.txHash || !['held_for_review', 'processing'].includes(transfer.status))
      throw ApplicationFailure.create({
        type: TransferFailure.TransferRefused,
        message: `transfer ${input.transferId} is ${transfer.status}${transfer.userOpHash || transfer.txHash ? ', signed' : ''}: the sweep fails only an unsigned transfer not yet sent`,
        nonRetryable: true,
      });
    await changeTransfer(em, {
      transferId: input.transferId,
      from: ['held_for_review', 'processing'],
      set: { status: 'failed', txHash: null, fee: null, error: UNSTARTED_TRANSFER_ERROR, nonceLane: null },
      event: { type: 'transfer.failed', error: UNSTARTED_TRANSFER_ERROR },
    });
    return { error: UNSTARTED_TRANSFER_ERROR };
  },
});

export type HousekeepingActivities = ReturnType<typeof createHousekeepingActivities>;
