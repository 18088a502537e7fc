import type { Orm } from '../../db/orm';
import { UserEntity, type User } from '../../db/entities';
import { problems } from '../http/problems';
import { requestEntityManager } from '../http/request-context';

/**
 * The caller's user row, or the one "inactive user" problem when it is suspended, closed or gone. Read through the
 * request's entity manager: the auth layer has read it already, so a handler asking again gets it from its identity map.
 */
export async function activeUser(orm: Orm, userId: string): Promise<User> {
  const user = await requestEntityManager(orm).findOne(UserEntity, { id: userId });
  if (user?.status !== 'active') throw problems.inactiveUser();
  return user;
}

/** The auth layer's check, once per Bearer request: one indexed read of the user, kept for the handler (activeUser). */
export async function assertActive(orm: Orm, userId: string): Promise<void> {
  await activeUser(orm, userId);
}
