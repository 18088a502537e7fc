import { randomUUID } from 'node:crypto';
import type { Orm } from '../../db/orm';
import { appendEvent } from '../../db/events';
import { DeviceEntity, PasskeyEntity, RefreshTokenEntity, UserEntity, type Device } from '../../db/entities';
import { problems } from '../http/problems';
import type { SecurityNotices } from '../common/security-notices';
import type { SessionCache } from '../common/session-cache';
import { clock } from '../../platform/clock';
import { findPage, type KeysetOrder, type Page, type PageRequest } from '../http/pagination';

const DEVICE_ORDER: KeysetOrder<'firstSeenAt' | 'id'> = {
  list: 'devices',
  fields: ['firstSeenAt', 'id'],
  kinds: ['date', 'string'],
  order: 'asc',
};

export interface SignedInDevice {
  sessionId: string;
  holdUntil: Date | null;
}

/** A device as the person sees it in the app (GET /v1/account/devices). */
export const deviceView = (device: Device, currentDeviceId: string) => ({
  deviceId: device.deviceId,
  label: device.label ?? null,
  signInMethod: device.signInMethod,
  firstSeenAt: device.firstSeenAt.toISOString(),
  lastUsedAt: device.lastUsedAt.toISOString(),
  holdUntil: device.holdUntil && device.holdUntil.getTime() > clock.now() ? device.holdUntil.toISOString() : null,
  current: device.deviceId === currentDeviceId,
});

/**
 * The devices signed in to an account. A sign-in starts a new session of the device (its tokens name the session);
 * revoking a device ends its session and its refresh tokens in one transaction, and its access tokens are refused
 * from then on (api/common/active-user.ts reads the session on every request). Every new device and every revocation
 * is an event, and mailed to the person.
 */
export class Devices {
  constructor(private readonly deps: { orm: Orm; notices: SecurityNotices; sessions?: SessionCache }) {}

  /**
   * The registering device's session, for the registration grant: created at its first grant, the same at the next.
   * A device the person revoked is not brought back by the registration's pass token (403).
   */
  async registrationSession(userId: string, deviceId: string): Promise<string> {
    const em = this.deps.orm.em.fork();
    const existing = await em.findOne(DeviceEntity, { userId, deviceId });
    if (existing?.revokedAt)
      throw problems.forbiddenAs('device-revoked', 'This device was signed out: sign in again (POST /v1/auth/sign-in)');
    if (existing) return existing.sessionId;
    const sessionId = newSessionId();
    em.create(DeviceEntity, {
      id: `dev_${randomUUID()}`,
      userId,
      deviceId,
      sessionId,
      signInMethod: 'registration',
      label: null,
      holdUntil: null,
      revokedAt: null,
    });
    try {
      await em.flush();
      return sessionId;
    } catch {
      // A concurrent grant for the same device made it first.
      const raced = await this.deps.orm.em.fork().findOneOrFail(DeviceEntity, { userId, deviceId });
      if (raced.revokedAt)
        throw problems.forbiddenAs(
          'device-revoked',
          'This device was signed out: sign in again (POST /v1/auth/sign-in)',
        );
      return raced.sessionId;
    }
  }

  /**
   * A sign-in on a device (new, or revoked before: it gets a new session, so earlier tokens of it never come back; one
   * signed in already is refused). Writes device.added and mails the person (the notice starts before the change
   * commits).
   */
  async signIn(input: {
    userId: string;
    deviceId: string;
    label: string | null;
    method: 'passkey' | 'id_card';
    holdUntil: Date | null;
  }): Promise<SignedInDevice> {
    const sessionId = newSessionId();
    const { userId, deviceId, label, method, holdUntil } = input;
    await this.deps.notices.around({ userId, eventType: 'device.added', resourceId: sessionId }, (eventId) =>
      this.deps.orm.em.fork().transactional(async (tx) => {
        const now = clock.date();
        const existing = await tx.findOne(DeviceEntity, { userId, deviceId });
        // Checked at the sign-in's start too; here against a device signed in meanwhile.
        if (existing && !existing.revokedAt)
          throw problems.conflict('device-signed-in', 'This device is signed in to the account already');
        if (existing) {
          Object.assign(existing, {
            sessionId,
            signInMethod: method,
            holdUntil,
            label,
            signedInAt: now,
            lastUsedAt: now,
            revokedAt: null,
          });
          // Refresh tokens of its earlier session end with it.
          await tx.nativeUpdate(RefreshTokenEntity, { userId, deviceId, revokedAt: null }, { revokedAt: now });
        } else {
          tx.create(DeviceEntity, {
            id: `dev_${randomUUID()}`,
            userId,
            deviceId,
            sessionId,
            signInMethod: method,
            label,
            holdUntil,
            revokedAt: null,
            firstSeenAt: now,
            signedInAt: now,
            lastUsedAt: now,
          });
        }
        await tx.flush();
        await appendEvent(tx, {
          eventId,
          type: 'device.added',
          resourceId: sessionId,
          userId,
          data: { deviceId, signInMethod: method, holdUntil: holdUntil?.toISOString() ?? null },
        });
      }),
    );
    return { sessionId, holdUntil };
  }

  async list(userId: string): Promise<Device[]> {
    return this.deps.orm.em.fork().find(DeviceEntity, { userId, revokedAt: null }, { orderBy: { firstSeenAt: 'asc' } });
  }

  /** The devices signed in now, oldest first, a page at a time. */
  async page(userId: string, page: PageRequest): Promise<Page<Device>> {
    return findPage(this.deps.orm.em.fork(), DeviceEntity, { userId, revokedAt: null }, DEVICE_ORDER, page, {
      defaultLimit: 50,
      whole: true,
    });
  }

  /** Whether the user has a device signed in as `deviceId` (for the routes' 404). */
  async exists(userId: string, deviceId: string): Promise<boolean> {
    return (await this.deps.orm.em.fork().count(DeviceEntity, { userId, deviceId, revokedAt: null })) > 0;
  }

  /**
   * Ends a device's new-device hold, approved by `passkey` (its route's step-up: a passkey past its own hold), which
   * the account must have registered before that device signed in (a passkey added from the held device itself, or
   * after it, proves nothing the ID card did not).
   */
  async release(userId: string, deviceId: string, passkey: { createdAt: Date }): Promise<void> {
    const device = await this.deps.orm.em.fork().findOne(DeviceEntity, { userId, deviceId, revokedAt: null });
    if (!device) throw problems.notFound(`Device ${deviceId}`);
    if (passkey.createdAt.getTime() >= device.signedInAt.getTime()) {
      throw problems.unprocessable(
        'passkey-too-new',
        'Only a passkey registered before this device signed in can release its hold',
      );
    }
    // Answered once every api process has been told (their session caches drop the hold): the device's next request,
    // wherever it goes, is no longer held (found by CI: a backup replace right after the release read the cached hold).
    const told = this.deps.sessions?.whenTold(userId);
    await this.deps.orm.em
      .fork()
      .nativeUpdate(DeviceEntity, { id: device.id, sessionId: device.sessionId }, { holdUntil: null });
    await told?.();
  }

  /**
   * Signs a device out: its session ends and its refresh tokens are revoked in one transaction, with device.revoked.
   * (Revoking another device needs the PIN or a passkey: its route's step-up.) Revoking a device signed out already
   * answers as the first time did.
   */
  async revoke(userId: string, deviceId: string, by: 'itself' | 'another_device'): Promise<void> {
    const device = await this.deps.orm.em.fork().findOne(DeviceEntity, { userId, deviceId });
    if (!device) throw problems.notFound(`Device ${deviceId}`);
    if (device.revokedAt) return;
    if (by === 'itself') await this.assertCanSignInAgain(userId, deviceId);
    // Answered once every api process has been told: its tokens are refused by the next request, wherever it goes.
    const told = this.deps.sessions?.whenTold(userId);
    await this.deps.notices.around({ userId, eventType: 'device.revoked', resourceId: device.sessionId }, (eventId) =>
      this.deps.orm.em.fork().transactional(async (tx) => {
        const now = clock.date();
        const ended = await tx.nativeUpdate(
          DeviceEntity,
          { id: device.id, sessionId: device.sessionId, revokedAt: null },
          { revokedAt: now },
        );
        if (ended !== 1) return; // a concurrent revocation (or a new sign-in) got there first
        await tx.nativeUpdate(RefreshTokenEntity, { userId, deviceId, revokedAt: null }, { revokedAt: now });
        await appendEvent(tx, {
          eventId,
          type: 'device.revoked',
          resourceId: device.sessionId,
          userId,
          data: { deviceId, by },
        });
      }),
    );
    await told?.();
  }

  /**
   * Signing out the account's only signed-in device is refused when nothing could sign it in again (no passkey, no ID
   * card on file: an account registered before cards were kept): a stolen token must not lock the person out for good.
   */
  private async assertCanSignInAgain(userId: string, deviceId: string): Promise<void> {
    const em = this.deps.orm.em.fork();
    if (await em.count(DeviceEntity, { userId, revokedAt: null, deviceId: { $ne: deviceId } })) return;
    if (await em.count(PasskeyEntity, { userId })) return;
    if ((await em.findOne(UserEntity, { id: userId }, { fields: ['idCardHash'] }))?.idCardHash) return;
    throw problems.conflict(
      'last-device',
      'This is the only signed-in device and the account has no passkey or ID card on file to sign in again with: add a passkey or renew your KYC first',
    );
  }
}

const newSessionId = (): string => `ses_${randomUUID()}`;
