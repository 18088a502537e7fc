import type { Orm } from '../db/orm';
import { WebauthnChallengeEntity } from '../db/entities';
import { clock } from '../platform/clock';

export interface HousekeepingActivityDeps {
  orm: Orm;
}

/**
 * How long an expired WebAuthn challenge is kept: while it is, a late answer to it is told it expired (410
 * challenge-expired) rather than that it is unknown (404).
 */
export const EXPIRED_CHALLENGE_KEPT_SECONDS = 3600;

/** Rows past their use, deleted on the worker's housekeeping schedule (worker/schedules.ts). */
export const createHousekeepingActivities = ({ orm }: HousekeepingActivityDeps) => ({
  /**
   * Deletes the WebAuthn challenges (passkey registration and approval options) that expired more than
   * EXPIRED_CHALLENGE_KEPT_SECONDS ago, used or not: a challenge proves nothing once expired. Answers how many.
   */
  async deleteExpiredChallenges(): Promise<{ deleted: number }> {
    const before = new Date(clock.now() - EXPIRED_CHALLENGE_KEPT_SECONDS * 1000);
    const deleted = await orm.em.fork().nativeDelete(WebauthnChallengeEntity, { expiresAt: { $lt: before } });
    return { deleted };
  },
});

export type HousekeepingActivities = ReturnType<typeof createHousekeepingActivities>;
