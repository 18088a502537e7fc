import { createHash, randomUUID } from 'node:crypto';
import {
  generateRegistrationOptions, verifyAuthenticationResponse, verifyRegistrationResponse,
  type AuthenticationResponseJSON, type PublicKeyCredentialCreationOptionsJSON, type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Orm } from '../../db/orm';
import { PasskeyEntity, WebauthnChallengeEntity, type Passkey } from '../../db/entities';
import { problems } from '../http/problems';

export interface PasskeyConfig { rpId: string; rpName: string; origins: string[]; challengeTtlSeconds: number }

/** A 2FA slot as answered in prepare responses (interface.md 2.1), with the WebAuthn request options to sign. */
export interface PasskeySlot {
  id: string;
  parameter: { authMethod: 'passkey'; options: PublicKeyCredentialRequestOptionsJSON };
  payload: '';
}

interface SignedSlotInput { id: string; parameter: { authMethod?: string; algorithm?: string }; signature: { authResponse: Record<string, unknown> } }

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
    throw problems.unprocessable('slot-mismatch', `Unsupported authMethod ${twoFactor[0].parameter.authMethod}; supported: passkey`);
  }
  return { onChain: onChain[0]!, passkey: twoFactor[0] };
}

/** The passkey slot of a request whose only signing item is a passkey approval (a transfer's). */
export function splitPasskeySlot<T extends SignedSlotInput>(items: T[]): T {
  const [slot] = items;
  if (items.length !== 1 || slot!.parameter.authMethod !== 'passkey') throw problems.unprocessable('slot-mismatch', 'Send exactly one slot, the passkey slot of the prepare answer');
  return slot!;
}

/** WebAuthn passkeys: registration ceremonies, and passkey approval of chain operations (the 2FA slot). */
export class Passkeys {
  constructor(private readonly orm: Orm, private readonly config: PasskeyConfig) {}

  async list(userId: string): Promise<Passkey[]> {
    return this.orm.em.fork().find(PasskeyEntity, { userId }, { orderBy: { createdAt: 'asc' } });
  }

  async methodsOf(userId: string): Promise<string[]> {
    return (await this.orm.em.fork().count(PasskeyEntity, { userId })) > 0 ? ['passkey'] : [];
  }

  async registrationOptions(user: { userId: string; userName: string; displayName: string }): Promise<{ challengeId: string; publicKey: PublicKeyCredentialCreationOptionsJSON }> {
    const existing = await this.list(user.userId);
    if (existing.length >= MAX_PASSKEYS_PER_USER) throw problems.conflict('too-many-passkeys', `A user can register at most ${MAX_PASSKEYS_PER_USER} passkeys`);
    const publicKey = await generateRegistrationOptions({
      rpName: this.config.rpName, rpID: this.config.rpId, userName: user.userName, userDisplayName: user.displayName,
      userID: new TextEncoder().encode(user.userId), timeout: TIMEOUT_MS, attestationType: 'none',
      excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: p.transports })),
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
    });
    const challengeId = `wac_${randomUUID()}`;
    const em = this.orm.em.fork();
    em.create(WebauthnChallengeEntity, {
      challengeId, userId: user.userId, challenge: publicKey.challenge,
      expiresAt: new Date(Date.now() + this.config.challengeTtlSeconds * 1000),
    });
    await em.flush();
    return { challengeId, publicKey };
  }

  /** Verifies a registration response against its one-time challenge and stores the passkey. */
  async register(userId: string, input: { challengeId: string; name?: string; credential: RegistrationResponseJSON }): Promise<Passkey> {
    const em = this.orm.em.fork();
    const challenge = await em.findOne(WebauthnChallengeEntity, { challengeId: input.challengeId, userId });
    if (!challenge) throw problems.notFound(`Registration challenge ${input.challengeId}`);
    if (challenge.usedAt) throw problems.conflict('challenge-used', 'This registration challenge was already used; ask for new options');
    if (challenge.expiresAt.getTime() < Date.now()) throw problems.gone('challenge-expired', 'The registration challenge expired; ask for new options');
    const used = await em.nativeUpdate(WebauthnChallengeEntity, { challengeId: challenge.challengeId, usedAt: null }, { usedAt: new Date() });
    if (used !== 1) throw problems.conflict('challenge-used', 'This registration challenge was already used; ask for new options');

    let verification: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
    try {
      verification = await verifyRegistrationResponse({
        response: input.credential, expectedChallenge: challenge.challenge, expectedOrigin: this.config.origins,
        expectedRPID: this.config.rpId, requireUserVerification: true,
      });
    } catch (error) {
      throw problems.unprocessable('invalid-passkey-registration', `The passkey registration was refused: ${(error as Error).message}`);
    }
    if (!verification.verified || !verification.registrationInfo) {
      throw problems.unprocessable('invalid-passkey-registration', 'The passkey registration could not be verified');
    }
    const info = verification.registrationInfo;
    const passkey = em.create(PasskeyEntity, {
      passkeyId: `pk_${randomUUID()}`, userId, credentialId: info.credential.id,
      publicKey: Buffer.from(info.credential.publicKey).toString('base64url'), signCount: info.credential.counter,
      transports: info.credential.transports ?? input.credential.response.transports ?? [],
      deviceType: info.credentialDeviceType, backedUp: info.credentialBackedUp, name: input.name ?? 'Passkey',
    });
    try {
      await em.flush();
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException) throw problems.conflict('passkey-exists', 'This passkey is already registered');
      throw error;
    }
    return passkey;
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
          challenge: approvalChallenge(operationId, digest), rpId: this.config.rpId, timeout: TIMEOUT_MS, userVerification: 'required',
          allowCredentials: passkeys.map((p) => ({ id: p.credentialId, type: 'public-key', transports: p.transports as never })),
        },
      },
      payload: '',
    };
  }

  /**
   * Checks the passkey approval of an operation at execute time. A user who has passkeys now must approve with one
   * (even when the operation was prepared before the passkey was registered); a user without passkeys sends none.
   */
  async verifyApproval(userId: string, slot: SignedSlotInput | undefined, operationId: string, digest: string): Promise<void> {
    const passkeys = await this.list(userId);
    if (!passkeys.length) {
      if (slot) throw problems.unprocessable('slot-mismatch', 'You have no passkey: send no passkey slot');
      return;
    }
    if (!slot) throw problems.unprocessable('passkey-required', 'Approve this operation with your passkey: prepare again and sign its passkey slot');
    if (slot.id !== passkeySlotId(operationId)) throw problems.unprocessable('slot-mismatch', 'The passkey slot does not belong to this operation');
    const response = slot.signature.authResponse as unknown as AuthenticationResponseJSON;
    const passkey = passkeys.find((p) => p.credentialId === response.id);
    if (!passkey) throw problems.unprocessable('unknown-passkey', 'The assertion is not from one of your passkeys');
    let verification: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
    try {
      verification = await verifyAuthenticationResponse({
        response, expectedChallenge: approvalChallenge(operationId, digest), expectedOrigin: this.config.origins,
        expectedRPID: this.config.rpId, requireUserVerification: true,
        credential: { id: passkey.credentialId, publicKey: Buffer.from(passkey.publicKey, 'base64url'), counter: passkey.signCount, transports: passkey.transports as never },
      });
    } catch (error) {
      throw problems.unprocessable('invalid-passkey-assertion', `The passkey approval was refused: ${(error as Error).message}`);
    }
    if (!verification.verified) throw problems.unprocessable('invalid-passkey-assertion', 'The passkey approval could not be verified');
    await this.orm.em.fork().nativeUpdate(PasskeyEntity, { passkeyId: passkey.passkeyId }, {
      signCount: verification.authenticationInfo.newCounter, lastUsedAt: new Date(),
    });
  }
}
