import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type {
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';

/** SimpleWebAuthn, loaded on the first passkey ceremony (about 2.6 MiB of an api at rest that runs none: issue 52). */
const webauthn = () => import('@simplewebauthn/server');
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Orm } from '../../db/orm';
import { PasskeyEntity, WebauthnChallengeEntity, type Passkey } from '../../db/entities';
import { appendEvent } from '../../db/events';
import { problems } from '../http/problems';
import type { SecurityNotices } from '../common/security-notices';
import type { SessionCache } from '../common/session-cache';
import { canonicalRequest, type StepUpRequest } from '../http/step-up';
import { clock } from '../../platform/clock';
import { findPage, type KeysetOrder, type Page, type PageRequest } from '../http/pagination';

const PASSKEY_ORDER: KeysetOrder<'createdAt' | 'passkeyId'> = {
  list: 'passkeys',
  fields: ['createdAt', 'passkeyId'],
  kinds: ['date', 'string'],
  order: 'asc',
};

/** `holdSeconds`: how long a new passkey cannot waive cooling-off or approve above the threshold (NEW_PASSKEY_HOLD_SECONDS). */
export interface PasskeyConfig {
  rpId: string;
  rpName: string;
  origins: string[];
  challengeTtlSeconds: number;
  holdSeconds: number;
}

/** A 2FA slot as answered in prepare responses (docs/interface.md 2.1), with the WebAuthn request options to sign. */
export interface PasskeySlot {
  id: string;
  parameter: { authMethod: 'passkey'; options: PublicKeyCredentialRequestOptionsJSON };
  payload: '';
}

interface SignedSlotInput {
  id: string;
  parameter: { authMethod?: string; algorithm?: string };
  signature: { authResponse: Record<string, unknown> };
}

const TIMEOUT_MS = 5 * 60 * 1000;
const MAX_PASSKEYS_PER_USER = 10;

/**
 * The challenge of a passkey approval: a hash of the operation's slot id and of the digest its on-chain slot signs.
 * An assertion made for one operation cannot approve another, and each operation executes at most once, so the
 * challenge needs no server-side state (prepare answers stay time- and state-independent).
 */
export function approvalChallenge(operationId: string, digest: string): string {
  return createHash('sha256').update(`wallet-passkey-approval:v1\n${operationId}\n${digest}`).digest('base64url');
}

/** Spreads into a slot list: nothing when there is no slot. */
export const optional = <T>(slot: T | undefined): T[] => (slot ? [slot] : []);

export const passkeySlotId = (operationId: string): string => `${operationId}.passkey`;

/** Splits the signed slots of an execute request into the one on-chain slot and an optional passkey slot. */
export function splitSignedSlots<T extends SignedSlotInput>(items: T[]): { onChain: T; passkey: T | undefined } {
  const onChain = items.filter((s) => s.parameter.authMethod === undefined);
  const twoFactor = items.filter((s) => s.parameter.authMethod !== undefined);
  if (onChain.length !== 1) throw problems.unprocessable('slot-mismatch', 'Send exactly one on-chain signed slot');
  if (twoFactor.length > 1) throw problems.unprocessable('slot-mismatch', 'Send at most one passkey slot');
  if (twoFactor[0] && twoFactor[0].parameter.authMethod !== 'passkey') {
    throw problems.unprocessable(
      'slot-mismatch',
      `Unsupported authMethod ${twoFactor[0].parameter.authMethod}; supported: passkey`,
    );
  }
  return { onChain: onChain[0]!, passkey: twoFactor[0] };
}

/** The passkey slot of a request whose only signing item is a passkey approval (a transfer's). */
export function splitPasskeySlot<T extends SignedSlotInput>(items: T[]): T {
  const [slot] = items;
  if (items.length !== 1 || slot!.parameter.authMethod !== 'passkey')
    throw problems.unprocessable('slot-mismatch', 'Send exactly one slot, the passkey slot of the prepare answer');
  return slot!;
}

/** The canonical form of a step-up request, as a challenge's purpose: the same request gives the same text. */
const purposeOf = canonicalRequest;

/**
 * WebAuthn passkeys: registration ceremonies (each approved by the PIN or an existing passkey, each told to the person
 * by mail and event), removal, passkey approval of chain operations (the 2FA slot) and of account changes (step-up).
 */
export class Passkeys {
  constructor(
    private readonly orm: Orm,
    private readonly config: PasskeyConfig,
    private readonly notices: SecurityNotices,
    /** Told of the change by the database: an enrolment or removal answers once every api process has heard it. */
    private readonly sessions?: SessionCache,
  ) {}

  /** Until when a passkey is too new to waive a cooling-off or approve above the threshold; null once past. */
  heldUntil(passkey: Passkey, now = clock.now()): Date | null {
    const until = passkey.createdAt.getTime() + this.config.holdSeconds * 1000;
    return until > now ? new Date(until) : null;
  }

  async list(userId: string): Promise<Passkey[]> {
    return this.orm.em.fork().find(PasskeyEntity, { userId }, { orderBy: { createdAt: 'asc' } });
  }

  /** The user's passkeys, oldest first, a page at a time. */
  async page(userId: string, page: PageRequest): Promise<Page<Passkey>> {
    return findPage(this.orm.em.fork(), PasskeyEntity, { userId }, PASSKEY_ORDER, page, {
      defaultLimit: 50,
      whole: true,
    });
  }

  async methodsOf(userId: string): Promise<string[]> {
    return (await this.orm.em.fork().count(PasskeyEntity, { userId })) > 0 ? ['passkey'] : [];
  }

  async registrationOptions(user: {
    userId: string;
    userName: string;
    displayName: string;
  }): Promise<{ challengeId: string; publicKey: PublicKeyCredentialCreationOptionsJSON }> {
    const existing = await this.list(user.userId);
    if (existing.length >= MAX_PASSKEYS_PER_USER)
      throw problems.conflict('too-many-passkeys', `A user can register at most ${MAX_PASSKEYS_PER_USER} passkeys`);
    const publicKey = await (
      await webauthn()
    ).generateRegistrationOptions({
      rpName: this.config.rpName,
      rpID: this.config.rpId,
      userName: user.userName,
      userDisplayName: user.displayName,
      userID: new TextEncoder().encode(user.userId),
      timeout: TIMEOUT_MS,
      attestationType: 'none',
      excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: p.transports })),
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
    });
    const challengeId = `wac_${randomUUID()}`;
    const em = this.orm.em.fork();
    em.create(WebauthnChallengeEntity, {
      challengeId,
      userId: user.userId,
      challenge: publicKey.challenge,
      expiresAt: new Date(clock.now() + this.config.challengeTtlSeconds * 1000),
      purpose: null,
    });
    await em.flush();
    return { challengeId, publicKey };
  }

  /**
   * Verifies a registration response against its one-time challenge and stores the passkey (its route's step-up, the
   * PIN or an existing passkey bound to this challenge, has passed). The passkey and its passkey.added event commit
   * together; the person is mailed.
   */
  async register(
    userId: string,
    input: { challengeId: string; name?: string; credential: RegistrationResponseJSON },
  ): Promise<Passkey> {
    const em = this.orm.em.fork();
    const challenge = await em.findOne(WebauthnChallengeEntity, {
      challengeId: input.challengeId,
      userId,
      purpose: null,
    });
    if (!challenge) throw problems.notFound(`Registration challenge ${input.challengeId}`);
    this.assertUsable(challenge, 'registration');
    await this.consume(challenge.challengeId);

    let verification: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
    try {
      verification = await (
        await webauthn()
      ).verifyRegistrationResponse({
        response: input.credential,
        expectedChallenge: challenge.challenge,
        expectedOrigin: this.config.origins,
        expectedRPID: this.config.rpId,
        requireUserVerification: true,
      });
    } catch (error) {
      throw problems.unprocessable(
        'invalid-passkey-registration',
        `The passkey registration was refused: ${(error as Error).message}`,
      );
    }
    if (!verification.verified || !verification.registrationInfo) {
      throw problems.unprocessable('invalid-passkey-registration', 'The passkey registration could not be verified');
    }
    const info = verification.registrationInfo;
    const passkeyId = `pk_${randomUUID()}`;
    const told = this.sessions?.whenTold(userId);
    try {
      const passkey = await this.notices.around(
        { userId, eventType: 'passkey.added', resourceId: passkeyId },
        (eventId) =>
          this.orm.em.fork().transactional(async (tx) => {
            const passkey = tx.create(PasskeyEntity, {
              passkeyId,
              userId,
              credentialId: info.credential.id,
              publicKey: Buffer.from(info.credential.publicKey).toString('base64url'),
              signCount: info.credential.counter,
              transports: info.credential.transports ?? input.credential.response.transports ?? [],
              deviceType: info.credentialDeviceType,
              backedUp: info.credentialBackedUp,
              name: input.name ?? 'Passkey',
              createdAt: clock.date(),
            });
            await tx.flush();
            await appendEvent(tx, {
              eventId,
              type: 'passkey.added',
              resourceId: passkeyId,
              userId,
              data: { passkeyId },
            });
            return passkey;
          }),
      );
      await told?.();
      return passkey;
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException)
        throw problems.conflict('passkey-exists', 'This passkey is already registered');
      throw error;
    }
  }

  /** Removes one of the user's passkeys (its route's step-up passed); the removal and passkey.removed commit together. */
  async remove(userId: string, passkeyId: string): Promise<void> {
    const told = this.sessions?.whenTold(userId);
    await this.notices.around({ userId, eventType: 'passkey.removed', resourceId: passkeyId }, (eventId) =>
      this.orm.em.fork().transactional(async (tx) => {
        if ((await tx.nativeDelete(PasskeyEntity, { passkeyId, userId })) !== 1)
          throw problems.notFound(`Passkey ${passkeyId}`);
        await appendEvent(tx, { eventId, type: 'passkey.removed', resourceId: passkeyId, userId, data: { passkeyId } });
      }),
    );
    await told?.();
  }

  /** A one-time challenge for one of the user's passkeys to approve `request` (a step-up), valid for 5 minutes. */
  async approvalOptions(
    userId: string,
    request: StepUpRequest,
  ): Promise<{ challengeId: string; publicKey: PublicKeyCredentialRequestOptionsJSON }> {
    const passkeys = await this.list(userId);
    if (!passkeys.length)
      throw problems.conflict(
        'no-passkey',
        request.action === 'sign_in'
          ? 'You have no passkey: prove the sign-in with your ID card instead'
          : 'You have no passkey: approve with your PIN instead',
      );
    const challenge = randomBytes(32).toString('base64url');
    const challengeId = `wsc_${randomUUID()}`;
    const em = this.orm.em.fork();
    em.create(WebauthnChallengeEntity, {
      challengeId,
      userId,
      challenge,
      purpose: purposeOf(request),
      expiresAt: new Date(clock.now() + this.config.challengeTtlSeconds * 1000),
    });
    await em.flush();
    return {
      challengeId,
      publicKey: {
        challenge,
        rpId: this.config.rpId,
        timeout: TIMEOUT_MS,
        userVerification: 'required',
        allowCredentials: passkeys.map((p) => ({
          id: p.credentialId,
          type: 'public-key',
          transports: p.transports as never,
        })),
      },
    };
  }

  /**
   * Checks a passkey's approval of `request` against the challenge issued for it, and spends the challenge. A passkey
   * still inside its new-passkey hold approves nothing (it may be a thief's, enrolled minutes ago), unless the caller
   * takes a held passkey for what it is (a sign-in, which then gives a held device).
   */
  async verifyStepUp(
    userId: string,
    challengeId: string,
    response: AuthenticationResponseJSON,
    request: StepUpRequest,
    options: { allowHeld?: boolean } = {},
  ): Promise<Passkey> {
    const challenge = await this.orm.em
      .fork()
      .findOne(WebauthnChallengeEntity, { challengeId, userId, purpose: { $ne: null } });
    if (!challenge) throw problems.notFound(`Approval challenge ${challengeId}`);
    if (challenge.purpose !== purposeOf(request)) {
      throw problems.unprocessable(
        'passkey-approval-not-for-this-request',
        `This approval challenge was issued for another request: ${challenge.purpose}`,
      );
    }
    this.assertUsable(challenge, 'approval');
    await this.consume(challengeId);
    const passkey = await this.verifyAssertion(await this.list(userId), response, challenge.challenge);
    const heldUntil = this.heldUntil(passkey);
    if (heldUntil && !options.allowHeld)
      throw problems.forbiddenAs(
        'passkey-on-hold',
        `This passkey was added less than NEW_PASSKEY_HOLD_SECONDS ago: until ${heldUntil.toISOString()} it approves nothing (use your PIN, or an older passkey)`,
        { heldUntil: heldUntil.toISOString() },
      );
    return passkey;
  }

  private assertUsable(challenge: { usedAt?: Date | null; expiresAt: Date }, kind: 'registration' | 'approval'): void {
    if (challenge.usedAt)
      throw problems.conflict('challenge-used', `This ${kind} challenge was already used; ask for new options`);
    if (challenge.expiresAt.getTime() < clock.now())
      throw problems.gone('challenge-expired', `The ${kind} challenge expired; ask for new options`);
  }

  /** Of two requests racing with one challenge, exactly one spends it. */
  private async consume(challengeId: string): Promise<void> {
    const used = await this.orm.em
      .fork()
      .nativeUpdate(WebauthnChallengeEntity, { challengeId, usedAt: null }, { usedAt: clock.date() });
    if (used !== 1) throw problems.conflict('challenge-used', 'This challenge was already used; ask for new options');
  }

  /** The 2FA slot to add to a prepare answer, when the user has passkeys. */
  async slotFor(userId: string, operationId: string, digest: string): Promise<PasskeySlot | undefined> {
    const passkeys = await this.list(userId);
    if (!passkeys.length) return undefined;
    return {
      id: passkeySlotId(operationId),
      parameter: {
        authMethod: 'passkey',
        options: {
          challenge: approvalChallenge(operationId, digest),
          rpId: this.config.rpId,
          timeout: TIMEOUT_MS,
          userVerification: 'required',
          allowCredentials: passkeys.map((p) => ({
            id: p.credentialId,
            type: 'public-key',
            transports: p.transports as never,
          })),
        },
      },
      payload: '',
    };
  }

  /**
   * Checks the passkey approval of an operation at execute time. A user who has passkeys now must approve with one
   * (even when the operation was prepared before the passkey was registered); a user without passkeys sends none.
   * Answers the passkey that approved, if any.
   */
  async verifyApproval(
    userId: string,
    slot: SignedSlotInput | undefined,
    operationId: string,
    digest: string,
  ): Promise<Passkey | undefined> {
    const passkeys = await this.list(userId);
    if (!passkeys.length) {
      if (slot) throw problems.unprocessable('slot-mismatch', 'You have no passkey: send no passkey slot');
      return undefined;
    }
    if (!slot)
      throw problems.unprocessable(
        'passkey-required',
        'Approve this operation with your passkey: prepare again and sign its passkey slot',
      );
    if (slot.id !== passkeySlotId(operationId))
      throw problems.unprocessable('slot-mismatch', 'The passkey slot does not belong to this operation');
    return this.verifyAssertion(
      passkeys,
      slot.signature.authResponse as unknown as AuthenticationResponseJSON,
      approvalChallenge(operationId, digest),
    );
  }

  /** Verifies an assertion of one of `passkeys` over `expectedChallenge` (user verification required); counts its use. */
  private async verifyAssertion(
    passkeys: Passkey[],
    response: AuthenticationResponseJSON,
    expectedChallenge: string,
  ): Promise<Passkey> {
    const passkey = passkeys.find((p) => p.credentialId === response.id);
    if (!passkey) throw problems.unprocessable('unknown-passkey', 'The assertion is not from one of your passkeys');
    let verification: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
    try {
      verification = await (
        await webauthn()
      ).verifyAuthenticationResponse({
        response,
        expectedChallenge,
        expectedOrigin: this.config.origins,
        expectedRPID: this.config.rpId,
        requireUserVerification: true,
        credential: {
          id: passkey.credentialId,
          publicKey: Buffer.from(passkey.publicKey, 'base64url'),
          counter: passkey.signCount,
          transports: passkey.transports as never,
        },
      });
    } catch (error) {
      throw problems.unprocessable(
        'invalid-passkey-assertion',
        `The passkey approval was refused: ${(error as Error).message}`,
      );
    }
    if (!verification.verified)
      throw problems.unprocessable('invalid-passkey-assertion', 'The passkey approval could not be verified');
    await this.orm.em.fork().nativeUpdate(
      PasskeyEntity,
      { passkeyId: passkey.passkeyId },
      {
        signCount: verification.authenticationInfo.newCounter,
        lastUsedAt: clock.date(),
      },
    );
    return passkey;
  }
}
