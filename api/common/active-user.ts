import type { Orm } from '../../db/orm';
import { UserEntity, type User } from '../../db/entities';
import { problems } from '../http/problems';

/** The caller's user row, or the one "inactive user" problem when it is suspended, closed or gone. */
export async function activeUser(orm: Orm, userId: string): Promise<User> {
  const user = await orm.em.fork().findOne(UserEntity, { id: userId });
  if (user?.status !== 'active') throw problems.inactiveUser();
  return user;
}

/** The auth layer's check: one indexed read of the user's status, nothing loaded into an identity map. */
export async function assertActive(orm: Orm, userId: string): Promise<void> {
  const found = await orm.em.fork().findOne(UserEntity, { id: userId }, { fields: ['status'] });
  if (found?.status !== 'active') throw problems.inactiveUser();
}
