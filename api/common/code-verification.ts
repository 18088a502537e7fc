import { raw, type EntityName, type FilterQuery } from '@mikro-orm/core';
import type { Orm } from '../../db/orm';
import { HttpError, problems } from '../http/problems';
import { clock } from '../../platform/clock';

/** The columns every code verification has (1 KRW deposit codes, mailed email codes). */
export interface CodeVerificationRow {
  verificationId: string;
  userId: string;
  status: string;
  attempts: number;
  expiresAt: Date;
}

/**
 * Counts an attempt at a verification code before it is compared, atomically, so parallel guesses cannot exceed
 * `maxAttempts`. Another user's verification is answered exactly like one that does not exist. `again` says what
 * the user does to start over ("send 1 KRW again").
 */
export async function countCodeAttempt<T extends CodeVerificationRow>(
  orm: Orm,
  entity: EntityName<T>,
  verificationId: string,
  userId: string,
  maxAttempts: number,
  again: string,
): Promise<T> {
  const em = orm.em.fork();
  const verification = await em.findOne(entity, { verificationId, userId } as FilterQuery<T>);
  if (!verification) throw problems.notFound(`Verification ${verificationId}`);
  if (verification.status === 'verified')
    throw problems.conflict('already-verified', 'This verification was completed already');
  if (verification.status === 'failed')
    throw problems.conflict('verification-locked', `Too many wrong codes; ${again}`);
  if (verification.expiresAt.getTime() < clock.now())
    throw problems.gone('verification-expired', `The code expired; ${again}`);
  const counted = await em.nativeUpdate(
    entity,
    { verificationId, status: 'pending', attempts: { $lt: maxAttempts } } as FilterQuery<T>,
    { attempts: raw('attempts + 1') } as never,
  );
  const fresh = await orm.em.fork().findOneOrFail(entity, { verificationId } as FilterQuery<T>);
  if (counted !== 1 || fresh.attempts > maxAttempts)
    throw problems.conflict('verification-locked', `Too many wrong codes; ${again}`);
  return fresh;
}

/** The 422 of a wrong code: how many attempts are left, or that the verification is now locked. */
export const wrongCode = (remaining: number): HttpError =>
  new HttpError(
    422,
    'wrong-code',
    'Wrong code',
    remaining > 0
      ? `The code does not match; ${remaining} attempt${remaining === 1 ? '' : 's'} left`
      : 'The code does not match; the verification is now locked',
  );
