import type { EntityData, EntityName, FilterQuery } from '@mikro-orm/core';
import type { Orm } from '../../db/orm';
import { serializeOperation } from '../../integrations/evm/smart-account';
import type { UserOperation } from '../../integrations/evm/user-operation';
import { problems } from '../http/problems';

/** A prepared user operation waiting for its signature (deploy jobs, DID key operations). */
export interface PreparedOperationRow { status: string; expiresAt: Date; userOperation: Record<string, string> }

/** Refuses a slot that was already used (409) or expired before it was ever executed (410). */
export function assertExecutable(row: PreparedOperationRow, what: string): void {
  if (row.status !== 'prepared' && row.status !== 'submitted') throw problems.conflict('slot-already-used', `This ${what} was already executed`);
  if (row.status === 'prepared' && row.expiresAt.getTime() < Date.now()) throw problems.gone('slot-expired', `The prepared ${what} expired; prepare again`);
}

/**
 * Stores the signed operation and moves the row from prepared to submitted. Of two concurrent executions exactly one
 * wins; the same signed slot sent again while submitted (a retry after a lost answer, or after a crash before the
 * workflow started) is accepted so the caller can make sure the workflow runs. Anything else is 409.
 */
export async function claimForSubmission<T extends object>(
  orm: Orm, entity: EntityName<T>, where: FilterQuery<T>, signed: UserOperation, what: string,
): Promise<void> {
  const em = orm.em.fork();
  const moved = await em.nativeUpdate(entity, { ...(where as object), status: 'prepared' } as unknown as FilterQuery<T>, {
    status: 'submitted', userOperation: serializeOperation(signed),
  } as unknown as EntityData<T>);
  if (moved === 1) return;
  const current = (await em.findOneOrFail(entity, where)) as unknown as PreparedOperationRow;
  if (current.status !== 'submitted' || current.userOperation.signature !== signed.signature) {
    throw problems.conflict('slot-already-used', `This ${what} was already executed`);
  }
}
