import {
  createHash,
  randomBytes,
  randomUUID,
  scrypt as scryptCallback,
  timingSafeEqual,
  type ScryptOptions,
} from 'node:crypto';
import { compactDecrypt, exportJWK, importJWK, type JWK, type KeyLike } from 'jose';
import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Orm } from '../../db/orm';
import { UserPinEntity } from '../../db/entities';
import { HotStatement } from '../../db/sql';
import type { DataEncryption } from '../../platform/data-encryption';
import { HttpError, problems } from '../http/problems';
import { appendEvent } from '../../db/events';
import { clock } from '../../platform/clock';
import type { SecurityNotices } from '../common/security-notices';

/** The user's PIN row, read before every check (a right PIN with nothing to reset is answered from it). */
const USER_PIN = new HotStatement('user-pin', 'select * from user_pins where user_id = ?');

/** An approval's use, by its jti's fingerprint (read when the approval was recorded before): prepared on PostgreSQL. */
const PIN_APPROVAL = new HotStatement<{ user_id: string; idempotency_key: string | null }>(
  'pin-approval',
  'select user_id, idempotency_key from pin_approvals where jti_hash = ?',
);
/** An approval's use forgotten: its PIN approved nothing. */
const UNSPEND_PIN_APPROVAL = new HotStatement('pin-approval-unspend', 'delete from pin_approvals where jti_hash = ?');
/** The approval's use recorded: a row answered when this insert is the one that recorded it. */
const SPEND_PIN_APPROVAL = new HotStatement<{ jti_hash: string }>(
  'pin-approval-spend',
  'insert into pin_approvals (jti_hash, user_id, idempotency_key, expires_at, created_at) values (?, ?, ?, ?, ?) ' +
    'on conflict (jti_hash) do nothing returning jti_hash',
);

const scrypt = (password: string, salt: Buffer, keylen: number, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) =>
    scryptCallback(password, salt, keylen, options, (error, key) => (error ? reject(error) : resolve(key))),
  );

/** The scrypt parameters (RFC 7914) of PINs stored before the keyed hash: still checked, and re-stored keyed when right. */
const SCRYPT_MAXMEM = 64 * 1024 * 1024;
/** The scheme PINs are stored under: a keyed hash (below). */
const PIN_SCHEME = 'hmac-sha256';
const KEY_ALGORITHM = 'ECDH-ES+A256KW';
const CONTENT_ALGORITHM = 'A256GCM';
/** An encrypted PIN is accepted for this long after its `iat`, so a captured one cannot be replayed later. */
const MAX_AGE_SECONDS = 300;
const WEAK = new Set([
  '000000',
  '111111',
  '222222',
  '333333',
  '444444',
  '555555',
  '666666',
  '777777',
  '888888',
  '999999',
  '123456',
  '654321',
  '012345',
  '987654',
]);

/**
 * A PIN as stored: HMAC-SHA256 under a key the database does not hold (derived from DATA_ENCRYPTION_KEY), over a salt
 * of its own and the PIN. A six-digit PIN has a million values, so no slow hash keeps a stolen table from giving them
 * up (scrypt at 90 ms a guess falls to one core in a day, to a GPU in minutes); a key kept outside the database does:
 * without it, a row tests nothing (NIST SP 800-63B, 5.1.1.2: the keyed hash with a secret held apart). Online, the
 * attempts and locks below are what bound guessing. It costs microseconds, where scrypt cost 90 ms of CPU per check and
 * held a database connection meanwhile (the transfers-per-second bench: most of a transfer's time in the API at 100 at once).
 */
export function hashPin(pin: string, encryption: DataEncryption): string {
  const salt = randomBytes(16).toString('base64');
  return `${PIN_SCHEME}$${salt}$${encryption.fingerprint(`${salt}|${pin}`, 'pin')}`;
}

/** Whether `pin` is the stored one; `upgrade`: true for a right PIN stored under the former scheme (scrypt). */
async function pinMatches(
  pin: string,
  stored: string,
  encryption: DataEncryption,
): Promise<{ matches: boolean; upgrade: boolean }> {
  const parts = stored.split('$');
  if (parts[0] === PIN_SCHEME && parts.length === 3) {
    const expected = Buffer.from(parts[2]!, 'base64url');
    const actual = Buffer.from(encryption.fingerprint(`${parts[1]}|${pin}`, 'pin'), 'base64url');
    return { matches: actual.length === expected.length && timingSafeEqual(actual, expected), upgrade: false };
  }
  if (parts[0] !== 'scrypt' || parts.length !== 6) return { matches: false, upgrade: false };
  const [, n, r, p, salt, hash] = parts;
  const expected = Buffer.from(hash!, 'base64');
  const actual = await scrypt(pin, Buffer.from(salt!, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: SCRYPT_MAXMEM,
  });
  const matches = timingSafeEqual(actual, expected);
  return { matches, upgrade: matches };
}

/** What an encrypted PIN that approves a request must name: the request itself (compared field by field). */
export type PinBinding = Record<string, string | null>;

/** What the current PIN of a PIN change approves: that change, to that new PIN (its JWE's digest). */
export const pinChangeApproval = (newPinJwe: string): PinBinding => ({
  action: 'pin_change',
  new_pin_sha256: createHash('sha256').update(newPinJwe).digest('base64url'),
});

interface PinPayload {
  pin: string;
  jti?: string;
  request?: unknown;
}

/**
 * Transaction PINs. The app encrypts `{"pin": "123456", "iat": <unix seconds>}` as a compact JWE to the service's
 * public key (ECDH-ES+A256KW, A256GCM; GET /api/v1/pin/public-key), so the PIN is never in clear text on the wire
 * or in logs. Stored as a keyed hash (hashPin); PIN_MAX_ATTEMPTS wrong PINs lock it for PIN_LOCK_SECONDS, and the PIN_MAX_LOCKS-th lock
 * in a row (no right PIN in between) keeps it locked until a reset (identity check and ID card). Every lock is mailed.
 *
 * A PIN that approves something (a transfer, a PIN change) also carries `jti` (a random id) and `request` (what it
 * approves, e.g. the transfer's recipient, amount, token, network and Idempotency-Key): it approves that request only,
 * and only once (the same request retried with its Idempotency-Key may present it again).
 */
/** Wrong PINs before a lock, its length, and how many locks in a row keep the PIN locked until a reset. */
export interface PinPolicy {
  maxAttempts: number;
  lockSeconds: number;
  maxLocks: number;
}

type PinCheck = 'ok' | 'not-set' | 'locked' | 'reset-required' | number;

export class PinService {
  private constructor(
    private readonly orm: Orm,
    private readonly privateKey: KeyLike | Uint8Array,
    readonly publicJwk: JWK,
    private readonly policy: PinPolicy,
    private readonly encryption: DataEncryption,
    private readonly notices: SecurityNotices,
  ) {}

  static async create(
    orm: Orm,
    privateJwkJson: string,
    policy: PinPolicy,
    encryption: DataEncryption,
    notices: SecurityNotices,
  ): Promise<PinService> {
    const jwk = JSON.parse(privateJwkJson) as JWK;
    if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || !jwk.d || !jwk.kid)
      throw new Error('PIN_ENCRYPTION_JWK must be a P-256 private JWK with a kid');
    const privateKey = await importJWK(jwk, KEY_ALGORITHM);
    const { d: _d, ...publicPart } = jwk;
    const publicJwk = {
      ...(await exportJWK(await importJWK(publicPart, KEY_ALGORITHM))),
      kid: jwk.kid,
      alg: KEY_ALGORITHM,
      use: 'enc',
    };
    return new PinService(orm, privateKey, publicJwk, policy, encryption, notices);
  }

  /** Opens an encrypted PIN; anything malformed, stale or not 6 digits is a 422. */
  async open(jwe: string, field: string): Promise<string> {
    return (await this.openPayload(jwe, field)).pin;
  }

  private async openPayload(jwe: string, field: string): Promise<PinPayload> {
    let payload: { pin?: unknown; iat?: unknown; jti?: unknown; request?: unknown };
    try {
      const { plaintext } = await compactDecrypt(jwe, this.privateKey, {
        keyManagementAlgorithms: [KEY_ALGORITHM],
        contentEncryptionAlgorithms: [CONTENT_ALGORITHM],
      });
      payload = JSON.parse(new TextDecoder().decode(plaintext)) as typeof payload;
    } catch {
      throw problems.unprocessable(
        'invalid-pin-encryption',
        `${field} must be a JWE (${KEY_ALGORITHM}, ${CONTENT_ALGORITHM}) to the key at /api/v1/pin/public-key that decrypts`,
      );
    }
    // The app stamps iat with its own (real) time, and the replay window below runs on the same.
    // eslint-disable-next-line no-restricted-syntax -- real time, as the app's iat
    const age = Math.floor(Date.now() / 1000) - Number(payload.iat);
    if (!Number.isFinite(age) || age < -60 || age > MAX_AGE_SECONDS) {
      throw problems.unprocessable(
        'invalid-pin-encryption',
        `${field} is stale: encrypt it again (iat within ${MAX_AGE_SECONDS} s)`,
      );
    }
    if (typeof payload.pin !== 'string' || !/^\d{6}$/.test(payload.pin)) {
      throw problems.unprocessable('invalid-pin', `${field}: the PIN is 6 digits`);
    }
    return {
      pin: payload.pin,
      jti: typeof payload.jti === 'string' ? payload.jti : undefined,
      request: payload.request,
    };
  }

  /** The approval must name this very request and carry a fresh jti; answers the jti. */
  private approvalOf(payload: PinPayload, field: string, request: PinBinding): string {
    const shape = `{${Object.keys(request)
      .map((k) => `"${k}"`)
      .join(', ')}}`;
    if (typeof payload.request !== 'object' || payload.request === null || Array.isArray(payload.request)) {
      throw problems.unprocessable(
        'pin-not-bound',
        `${field} must name the request it approves: "request": ${shape}, and a random "jti"`,
      );
    }
    const named = payload.request as Record<string, unknown>;
    const differing = Object.keys(request).filter((key) => (named[key] ?? null) !== request[key]);
    if (differing.length) {
      throw problems.unprocessable(
        'pin-not-for-this-request',
        `${field} approves another request: ${differing.join(', ')} differ${differing.length === 1 ? 's' : ''}`,
      );
    }
    if (!payload.jti || payload.jti.length < 16 || payload.jti.length > 128) {
      throw problems.unprocessable('pin-not-bound', `${field} needs a random "jti" of 16 to 128 characters`);
    }
    return payload.jti;
  }

  /**
   * Records that this approval is used, for this Idempotency-Key, before its PIN is compared: of two requests racing
   * with one approval, the insert lets exactly one through (one INSERT, no transaction), and an approval already used
   * is refused (409) before its PIN could reset a count of wrong ones. The same request retried with the same
   * Idempotency-Key may present it again. Answers the fingerprint this call recorded (undefined for such a retry).
   */
  private async spend(userId: string, jti: string, idempotencyKey: string | null): Promise<string | undefined> {
    // Per user: an approval captured and presented under another account records nothing its owner's use meets.
    const jtiHash = this.encryption.fingerprint(`${userId}\u0000${jti}`, 'pin-jti');
    const em = this.orm.em.fork();
    const retry = (row: { user_id: string; idempotency_key: string | null } | undefined) =>
      row !== undefined && row.user_id === userId && idempotencyKey !== null && row.idempotency_key === idempotencyKey;
    const inserted = await SPEND_PIN_APPROVAL.rows(em, [
      jtiHash,
      userId,
      idempotencyKey,
      // eslint-disable-next-line no-restricted-syntax -- real time: kept while the JWE is fresh (its iat is real time)
      new Date(Date.now() + (MAX_AGE_SECONDS + 120) * 1000),
      clock.date(),
    ]);
    if (inserted.length) return jtiHash;
    if (retry(await PIN_APPROVAL.row(em, [jtiHash]))) return undefined;
    // Approvals older than any acceptable iat can never match again: the worker's housekeeping deletes them hourly.
    throw problems.conflict(
      'pin-already-used',
      'This encrypted PIN already approved a request; encrypt it again for this one',
    );
  }

  /**
   * An approval recorded by `spend` whose PIN approved nothing (wrong, locked, not set) is not used: it may come again.
   * Best effort: left recorded (a database error), it is refused as used until stale, and the app encrypts the PIN
   * again; the answer stays the PIN's.
   */
  private async unspend(jtiHash: string): Promise<void> {
    await UNSPEND_PIN_APPROVAL.rows(this.orm.em.fork(), [jtiHash]).catch(() => undefined);
  }

  async isSet(userId: string): Promise<boolean> {
    return (await this.orm.em.fork().count(UserPinEntity, { userId })) > 0;
  }

  /**
   * Sets the first PIN (its route made sure the person, not only a token, asks: the registration's pass token, or a
   * fresh identity check), with the event `pin.set` under `eventId`.
   */
  async set(userId: string, jwe: string, eventId: string): Promise<void> {
    const pin = await this.newPin(jwe, 'pin');
    const em = this.orm.em.fork();
    if (await em.count(UserPinEntity, { userId }))
      throw problems.conflict(
        'pin-already-set',
        'A PIN is already set; change it with PUT /api/v1/pin, or reset it with POST /api/v1/pin/reset',
      );
    try {
      await em.transactional(async (tx) => {
        tx.create(UserPinEntity, { userId, pinHash: hashPin(pin, this.encryption) });
        await tx.flush();
        await appendEvent(tx, { eventId, type: 'pin.set', resourceId: userId, userId, data: { userId } });
      });
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException)
        throw problems.conflict('pin-already-set', 'A PIN is already set');
      throw error;
    }
  }

  /**
   * Changes the PIN to `newJwe`. The current PIN approved this very change (the route's step-up: `current_pin` names
   * the new PIN's digest, `new_pin_sha256`, so an intercepted change cannot be raced with another new PIN).
   */
  async change(userId: string, newJwe: string, eventId: string): Promise<void> {
    await this.replace(userId, await this.newPin(newJwe, 'new_pin'), 'pin.changed', eventId);
  }

  /**
   * Resets a forgotten or locked PIN (the route's step-up: a fresh identity check with the ID card): the new PIN
   * replaces it and the lockout ends; a person without a PIN gets this one.
   */
  async reset(userId: string, newJwe: string, eventId: string): Promise<void> {
    await this.replace(userId, await this.newPin(newJwe, 'new_pin'), 'pin.reset', eventId);
  }

  private async newPin(jwe: string, field: string): Promise<string> {
    const pin = await this.open(jwe, field);
    if (WEAK.has(pin))
      throw problems.unprocessable('weak-pin', 'Choose a PIN that is not a repeated or sequential number');
    return pin;
  }

  private async replace(userId: string, pin: string, type: 'pin.changed' | 'pin.reset', eventId: string) {
    const pinHash = hashPin(pin, this.encryption);
    await this.orm.em.fork().transactional(async (tx) => {
      const updated = await tx.nativeUpdate(
        UserPinEntity,
        { userId },
        // A reset (an identity check) ends the lockout; a change keeps the count of wrong PINs: the current PIN that
        // approved it ended that count already, unless it was a retried approval (see verify), which must not.
        type === 'pin.reset' ? { pinHash, failedAttempts: 0, locks: 0, lockedUntil: null } : { pinHash },
      );
      if (!updated) {
        if (type === 'pin.changed') throw problems.conflict('pin-not-set', 'Set a PIN first');
        tx.create(UserPinEntity, { userId, pinHash });
        await tx.flush();
      }
      await appendEvent(tx, { eventId, type, resourceId: userId, userId, data: { userId } });
    });
  }

  /**
   * Checks the PIN. Checks of one user run one at a time (a row lock on their PIN held while the hash is compared),
   * so parallel guesses are counted exactly and can never exceed the limit, while parallel right PINs simply queue.
   * The last allowed wrong PIN locks it for PIN_LOCK_SECONDS; the PIN_MAX_LOCKS-th lock in a row keeps it locked until
   * a reset, so a thief holding a session guesses PIN_MAX_ATTEMPTS x PIN_MAX_LOCKS times at most, not 240 a day.
   */
  async verify(
    userId: string,
    jwe: string,
    approval: { field?: string; request: PinBinding; idempotencyKey: string | null },
  ): Promise<void> {
    const field = approval.field ?? 'pin';
    const payload = await this.openPayload(jwe, field);
    const jti = this.approvalOf(payload, field, approval.request);
    const spent = await this.spend(userId, jti, approval.idempotencyKey);
    // The approval's request retried with its Idempotency-Key (it was recorded before, so its PIN was right then) is
    // compared without undoing a count of wrong PINs: replayed while fresh, a captured right approval would otherwise
    // reset the lockout between guesses.
    const outcome = await this.check(userId, payload.pin, spent !== undefined).catch(async (error: unknown) => {
      if (spent) await this.unspend(spent);
      throw error;
    });
    if (outcome === 'ok') return;
    if (spent) await this.unspend(spent);
    if (outcome === 'not-set') throw problems.conflict('pin-not-set', 'Set a PIN first (POST /api/v1/pin)');
    if (outcome === 'locked') throw await this.locked(userId);
    if (outcome === 'reset-required')
      throw new HttpError(
        423,
        'pin-reset-required',
        'PIN locked until reset',
        'Too many wrong PINs: reset the PIN (POST /api/v1/pin/reset) with an identity check and the ID card',
      );
    throw problems.unprocessable(
      'wrong-pin',
      `The PIN is wrong; ${outcome} attempt${outcome === 1 ? '' : 's'} left before it locks`,
    );
  }

  /**
   * Compares the PIN and counts a wrong one. A lock is an event (pin.locked) mailed to the person: its notice is
   * started before the check when this check may lock (so a crash after the commit loses no mail), and after the commit
   * when a parallel check made this one the locking one.
   */
  private async check(userId: string, pin: string, reset = true): Promise<PinCheck> {
    const { maxAttempts, maxLocks } = this.policy;
    const seen = await USER_PIN.entity(this.orm.em.fork(), UserPinEntity, [userId]);
    // A right PIN on a row with nothing to reset (no wrong attempt counted, no lock) changes nothing: it is answered
    // from this read, without the locking transaction (three round trips fewer per approval; issue 52). Every wrong
    // PIN, and a right one that must reset a count or a lock, goes through the transaction below, which counts it.
    if (seen && seen.failedAttempts === 0 && seen.locks === 0 && !seen.lockedUntil) {
      const { matches, upgrade } = await pinMatches(pin, seen.pinHash, this.encryption);
      if (matches && !upgrade) return 'ok';
    }
    const mayLock =
      !!seen &&
      seen.locks < maxLocks &&
      !(seen.lockedUntil && seen.lockedUntil.getTime() > clock.now()) &&
      (seen.lockedUntil ? 0 : seen.failedAttempts) + 1 >= maxAttempts;
    const notice = { userId, eventType: 'pin.locked' as const, resourceId: userId };
    if (mayLock)
      return (await this.notices.around(notice, (eventId) => this.compare(userId, pin, eventId, reset))).outcome;
    const eventId = `evt_${randomUUID()}`;
    const { outcome, lockedNow } = await this.compare(userId, pin, eventId, reset);
    if (lockedNow) await this.notices.afterCommit(notice, eventId);
    return outcome;
  }

  /** `reset`: a right PIN ends the count of wrong ones and of locks (not for a retried approval: see verify). */
  private compare(
    userId: string,
    pin: string,
    eventId: string,
    reset: boolean,
  ): Promise<{ outcome: PinCheck; lockedNow: boolean }> {
    const { maxAttempts, maxLocks, lockSeconds } = this.policy;
    return this.orm.em.fork().transactional(async (tx) => {
      const row = await tx.findOne(UserPinEntity, { userId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!row) return { outcome: 'not-set', lockedNow: false };
      const now = clock.now();
      if (row.lockedUntil && row.lockedUntil.getTime() > now) return { outcome: 'locked', lockedNow: false };
      if (row.locks >= maxLocks) return { outcome: 'reset-required', lockedNow: false };
      if (row.lockedUntil) Object.assign(row, { lockedUntil: null, failedAttempts: 0 });
      const { matches, upgrade } = await pinMatches(pin, row.pinHash, this.encryption);
      if (matches) {
        Object.assign(row, {
          ...(reset ? { failedAttempts: 0, locks: 0 } : {}),
          ...(upgrade ? { pinHash: hashPin(pin, this.encryption) } : {}),
        });
        return { outcome: 'ok', lockedNow: false };
      }
      row.failedAttempts += 1;
      if (row.failedAttempts < maxAttempts) return { outcome: maxAttempts - row.failedAttempts, lockedNow: false };
      const locks = row.locks + 1;
      const lockedUntil = locks >= maxLocks ? null : new Date(now + lockSeconds * 1000);
      Object.assign(row, { failedAttempts: 0, locks, lockedUntil });
      await tx.flush();
      await appendEvent(tx, {
        eventId,
        type: 'pin.locked',
        resourceId: userId,
        userId,
        data: { userId, lockedUntil: lockedUntil?.toISOString() ?? null, resetRequired: !lockedUntil },
      });
      return { outcome: lockedUntil ? 'locked' : 'reset-required', lockedNow: true };
    });
  }

  private async locked(userId: string): Promise<HttpError> {
    const row = await this.orm.em.fork().findOne(UserPinEntity, { userId });
    const seconds = Math.max(
      1,
      Math.ceil(((row?.lockedUntil?.getTime() ?? clock.now() + this.policy.lockSeconds * 1000) - clock.now()) / 1000),
    );
    return new HttpError(423, 'pin-locked', 'PIN locked', `Too many wrong PINs; try again in ${seconds} s`, undefined, {
      'retry-after': String(seconds),
    });
  }
}
