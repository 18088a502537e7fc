import type { EntityManager } from '@mikro-orm/core';
import type { Orm } from '../../db/orm';
import { UserEntity, type User } from '../../db/entities';
import { problems } from '../http/problems';
import { requestEntityManager, takeSessionUser, keepSessionUser } from '../http/request-context';
import { HotStatement } from '../../db/sql';
import type { AuthenticatedUser, DeviceSession } from '../http/route-table';
import type { SessionCache } from './session-cache';

/**
 * The caller's user row, or the one "inactive user" problem when it is suspended, closed or gone, in the request's
 * entity manager. The auth layer's session check has read it already (kept for the request, mapped to an entity
 * only here, as most handlers never ask), so the handler's call runs no statement.
 */
export async function activeUser(orm: Orm, userId: string): Promise<User> {
  const em = requestEntityManager(orm);
  const checked = takeSessionUser(userId);
  const user = checked ? em.map(UserEntity, { ...checked }) : await em.findOne(UserEntity, { id: userId });
  if (user?.status !== 'active') throw problems.inactiveUser();
  return user;
}

/** An active user's check where no access token is involved (issuing tokens). */
export async function assertActive(orm: Orm, userId: string): Promise<void> {
  await activeUser(orm, userId);
}

/** A legacy session: access tokens issued before devices existed name none (migration 20261125110000). */
export const LEGACY_SESSION = 'legacy';

/**
 * The per-request check (the user, the token's device and whether the user has a passkey, in one statement); the bench
 * times it against the user read alone.
 */
export const SESSION_SQL =
  'select u.*, d.session_id as device_session_id, d.revoked_at as device_revoked_at, d.hold_until as device_hold_until, ' +
  'd.sign_in_method as device_sign_in_method, d.signed_in_at as device_signed_in_at, ' +
  'exists (select 1 from passkeys p where p.user_id = u.id) as has_passkey ' +
  'from users u left join devices d on d.user_id = u.id and d.device_id = ? where u.id = ?';

/**
 * Prepared (a named statement on PostgreSQL): planning the join is most of its cost (measured: 250 µs a round trip
 * unprepared, 100 µs prepared, the same as the user read alone), and it runs on every Bearer request a cache misses.
 */
const SESSION = new HotStatement<SessionRow>('active-session', SESSION_SQL);

/**
 * The session's row: from the process's cache while nothing about the user changed (see SessionCache), else read. A
 * cached row is used after pending I/O has run, so a change notification already received is applied first.
 */
async function sessionRow(
  em: EntityManager,
  user: AuthenticatedUser,
  cache?: SessionCache,
): Promise<SessionRow | undefined> {
  if (cache?.get(user.userId, user.deviceId)) {
    await new Promise((resolve) => setImmediate(resolve));
    const cached = cache.peek(user.userId, user.deviceId);
    if (cached) return cached as SessionRow;
  }
  const generation = cache?.generation() ?? 0;
  const row = await SESSION.row(em, [user.deviceId, user.userId]);
  if (row) cache?.set(user.userId, user.deviceId, row, generation);
  return row;
}

interface SessionRow extends Record<string, unknown> {
  device_session_id: string | null;
  device_revoked_at: unknown;
  device_hold_until: unknown;
  device_sign_in_method: DeviceSession['signInMethod'] | null;
  device_signed_in_at: unknown;
  has_passkey: unknown;
}
const dateOf = (value: unknown): Date | null =>
  value === null || value === undefined ? null : value instanceof Date ? value : new Date(value as string | number);

/**
 * The auth layer's check, once per Bearer request and in one statement: the user is active, and the token's device
 * is signed in with the token's session (a revoked device, or one that signed in again since, is refused at once, in
 * every api process: the row is read, or kept in the process's SessionCache only while the database tells of no
 * change of the user). The user row is kept for the request's handler (activeUser).
 */
export async function activeSession(orm: Orm, user: AuthenticatedUser, cache?: SessionCache): Promise<DeviceSession> {
  const row = await sessionRow(orm.em, user, cache);
  if (!row) throw problems.inactiveUser();
  const {
    device_session_id: sessionId,
    device_revoked_at: revokedAt,
    device_hold_until: holdUntil,
    device_sign_in_method: signInMethod,
    device_signed_in_at: signedInAt,
    has_passkey: hasPasskey,
    ...columns
  } = row;
  if (columns.status !== 'active') throw problems.inactiveUser();
  keepSessionUser(user.userId, columns);
  const current =
    sessionId !== null &&
    revokedAt === null &&
    (user.sessionId ? user.sessionId === sessionId : sessionId === LEGACY_SESSION);
  if (!current)
    throw problems.unauthorized(
      'This device was signed out (or signed in again since this token was issued): sign in again',
      'device-signed-out',
    );
  return {
    holdUntil: dateOf(holdUntil),
    signInMethod: signInMethod!,
    signedInAt: dateOf(signedInAt)!,
    // PostgreSQL answers a boolean, SQLite 0 or 1.
    hasPasskey: hasPasskey === true || hasPasskey === 1,
  };
}
