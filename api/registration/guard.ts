import type { Orm } from '../../db/orm';
import { RegistrationEntity, type Registration } from '../../db/entities';
import type { DataEncryption } from '../../platform/data-encryption';
import { HttpError, problems } from '../http/problems';
import { safeEqual } from '../auth/tokens';
import type { PassTokens } from '../../integrations/identity';
import { clock } from '../../platform/clock';

export const regIdFor = (encryption: DataEncryption, passRequestId: string): string =>
  `reg_${encryption.derivedId(passRequestId, 'regId')}`;
export const passTokenHash = (encryption: DataEncryption, passToken: string): string =>
  encryption.fingerprint(passToken, 'pass-token');

/**
 * X-Pass-Token check for the registration steps: the token must be the one that started this registration and
 * must not have expired. `allowCompleted` lets the token exchange run after the last step.
 */
export async function authorizeRegistration(
  orm: Orm,
  encryption: DataEncryption,
  regId: string,
  passToken: string,
  options: { allowCompleted?: boolean } = {},
): Promise<Registration> {
  const registration = await orm.em.fork().findOne(RegistrationEntity, { regId });
  if (!registration || !registration.passTokenHash) throw problems.notFound(`Registration ${regId}`);
  if (!safeEqual(registration.passTokenHash, passTokenHash(encryption, passToken))) {
    throw problems.wrongPassToken('The X-Pass-Token does not belong to this registration');
  }
  if (registration.passTokenExpiresAt && registration.passTokenExpiresAt.getTime() < clock.real()) {
    throw problems.invalidCredential('pass-token-expired', 'The pass token has expired; verify your identity again');
  }
  if (registration.status === 'expired')
    throw problems.gone('registration-expired', 'This registration expired; start a new one');
  if (registration.status === 'failed')
    throw new HttpError(409, 'registration-failed', 'Registration failed', 'This registration failed; start a new one');
  if (registration.status === 'completed' && !options.allowCompleted) {
    throw problems.conflict('registration-completed', 'This registration is already completed');
  }
  return registration;
}

/** The identity provider's word on a pass token (introspection): active, for which verification, until when. */
export async function activePassToken(
  identity: PassTokens,
  passToken: string,
): Promise<{ passRequestId: string; expiresAt: Date }> {
  const introspection = await identity.introspectPassToken(passToken).catch(() => {
    throw problems.badGateway('The identity verification service could not be reached');
  });
  const expiresAt = introspection.expiresAt ? new Date(introspection.expiresAt) : undefined;
  if (!introspection.active || !introspection.passRequestId || !expiresAt || expiresAt.getTime() < clock.real()) {
    throw problems.invalidCredential('invalid-pass-token', 'The pass token is invalid or expired');
  }
  return { passRequestId: introspection.passRequestId, expiresAt };
}
