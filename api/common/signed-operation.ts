import type { EntityData, EntityName, FilterQuery } from '@mikro-orm/core';
import type { Orm } from '../../db/orm';
import { deserializeOperation, serializeOperation } from '../../integrations/evm/smart-account';
import { singleSignature } from '../../integrations/evm/user-operation';
import { keyUriOf } from '../../integrations/evm/signing-slots';
import { optional, splitSignedSlots, type Passkeys } from '../passkeys/service';
import { startOnce } from '../http/start-once';
import { verifyOnChainSlot } from './slot-verification';
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

/** A signed slot of an execute request, as its schema admits it. */
export interface SignedSlot {
  id: string; parameter: { authMethod?: string; algorithm?: string; keyUri?: string };
  signature: { authResponse: Record<string, unknown> & { signature?: string } };
}

/** A prepared single user operation (a deploy job, a DID key operation) as the execute path needs it. */
export interface PreparedSingleOperation extends PreparedOperationRow { id: string; networkId: string; userOpHash: string; ownerAddress: string }

/**
 * The one execute path of "prepare, sign, execute, submit" for a single user operation: the slot must be the one
 * prepared (same algorithm and owner key) and signed by the owner; a user with a passkey must approve this very
 * operation; the signed operation is claimed once (a resent identical slot resumes) and its workflow started once.
 */
export async function executeSingleOperation<T extends object>(
  deps: { orm: Orm; passkeys: Passkeys }, userId: string, items: SignedSlot[],
  spec: {
    what: string;
    load: (slotId: string) => Promise<PreparedSingleOperation | null>;
    entity: EntityName<T>; where: (id: string) => FilterQuery<T>;
    start: (prepared: PreparedSingleOperation) => Promise<unknown>;
  },
): Promise<PreparedSingleOperation> {
  const { onChain: slot, passkey } = splitSignedSlots(items);
  const prepared = await spec.load(slot.id);
  if (!prepared) throw problems.notFound(`Signing slot ${slot.id}`);
  assertExecutable(prepared, spec.what);
  const signature = verifyOnChainSlot(slot, {
    algorithm: SINGLE_OPERATION_ALGORITHM, keyUri: keyUriOf(prepared.ownerAddress), payload: prepared.userOpHash, signer: prepared.ownerAddress,
  });
  // A resumed execution (same signed slot, already submitted) was approved when it was claimed.
  if (prepared.status === 'prepared') await deps.passkeys.verifyApproval(userId, passkey, prepared.id, prepared.userOpHash);
  const operation = { ...deserializeOperation(prepared.userOperation), signature: singleSignature(signature) };
  await claimForSubmission(deps.orm, spec.entity, spec.where(prepared.id), operation, spec.what);
  await startOnce(() => spec.start(prepared));
  return prepared;
}

/** The slot a single user operation is signed in: the owner's signature over its EIP-712 userOpHash. */
export const SINGLE_OPERATION_ALGORITHM = 'eip712-erc4337-userop-v1';

/**
 * The prepare answer's slots for a single user operation: the owner signs its userOpHash (EIP-712 domain of the
 * network's EntryPoint, plus what the app should show), and a user with a passkey approves this very operation.
 */
export async function preparedSlots(passkeys: Passkeys, userId: string, input: {
  id: string; owner: string; network: { chainId: number; entryPoint: string }; domain: Record<string, unknown>; userOpHash: string;
}) {
  const slot = {
    id: input.id,
    parameter: {
      algorithm: SINGLE_OPERATION_ALGORITHM, keyUri: keyUriOf(input.owner),
      domain: { name: 'ERC4337', version: '1', chainId: input.network.chainId, verifyingContract: input.network.entryPoint, ...input.domain },
    },
    payload: input.userOpHash,
  };
  return [slot, ...optional(await passkeys.slotFor(userId, input.id, input.userOpHash))];
}
