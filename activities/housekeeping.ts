import type { Orm } from '../db/orm';
import { PayoutEntity, PinApprovalEntity, WebauthnChallengeEntity } from '../db/entities';
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
   * Payouts not final that were accepted more than UNSTARTED_PAYOUT_SECONDS ago, oldest first (at most 100 a sweep):
   * the housekeeping workflow starts the workflow of each one that has none (the others answer that theirs runs).
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
});

export type HousekeepingActivities = ReturnType<typeof createHousekeepingActivities>;
