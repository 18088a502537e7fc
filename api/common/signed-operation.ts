import type { EntityManager } from '@mikro-orm/core';
import type { Orm } from '../../db/orm';
import {
  KeyRotationNetworkEntity,
  SignedOperationEntity,
  type SignedOperation,
  type SignedOperationDetails,
  type SignedOperationKind,
} from '../../db/entities';
import { deserializeOperation, feesReplacing, serializeOperation } from '../../integrations/evm/smart-account';
import { singleSignature } from '../../integrations/evm/user-operation';
import { keyUriOf } from '../../integrations/evm/signing-slots';
import { optional, splitSignedSlots, type Passkeys } from '../passkeys/service';
import { startOnce } from '../http/start-once';
import { verifyOnChainSlot } from './slot-verification';
import type { UserOperation } from '../../integrations/evm/user-operation';
import { problems } from '../http/problems';
import { clock } from '../../platform/clock';

/**
 * The operations priced above any operation of the same account and nonce already handed to a bundler (one that
 * stalled because fees rose, being prepared again for the owner to sign): bundlers replace an operation in their
 * mempool only for higher fees on both caps (see feesReplacing).
 */
export async function priceAboveInFlight<T extends { networkId: string; operation: UserOperation }>(
  orm: Orm,
  items: T[],
): Promise<T[]> {
  const em = orm.em.fork();
  return Promise.all(
    items.map(async (item) => {
      const where = { networkId: item.networkId, accountAddress: item.operation.sender };
      const [signed, rotations] = await Promise.all([
        em.find(SignedOperationEntity, { ...where, status: { $in: ['submitted', 'stalled'] } }),
        em.find(KeyRotationNetworkEntity, { ...where, status: { $in: ['processing', 'stalled'] } }),
      ]);
      const nonce = item.operation.nonce.toString();
      const inFlight = [...signed, ...rotations].filter((o) => o.userOperation.nonce === nonce);
      // Only a stalled operation may be taken over (the owner signs it again): one still on its way is not, or a new
      // operation (another swap, say) would be recorded in its place while the first one lands (found by the soak).
      const onItsWay = signed.find((o) => o.status === 'submitted' && o.userOperation.nonce === nonce);
      const rotating = rotations.find((o) => o.status === 'processing' && o.userOperation.nonce === nonce);
      if (onItsWay || rotating)
        throw operationInFlight(item.networkId, onItsWay ? `${onItsWay.kind} ${onItsWay.operationId}` : 'key rotation');
      let operation = item.operation;
      for (const other of inFlight)
        operation = { ...operation, ...feesReplacing(operation, deserializeOperation(other.userOperation)) };
      return { ...item, operation };
    }),
  );
}

/** 409 operation-in-flight: another operation of the account on the same nonce is on its way (not stalled). */
const operationInFlight = (networkId: string, what: string) =>
  problems.conflict(
    'operation-in-flight',
    `Another operation of this account on ${networkId} (${what}) is on its way: prepare this one again once it has completed or failed`,
    { 'retry-after': '5' },
  );

/** Refuses a slot that was already used (409) or expired before it was ever executed (410). */
function assertExecutable(op: Pick<SignedOperation, 'status' | 'expiresAt'>, what: string): void {
  if (op.status !== 'prepared' && op.status !== 'submitted' && op.status !== 'stalled')
    throw problems.conflict('slot-already-used', `This ${what} was already executed`);
  if (op.status === 'prepared' && op.expiresAt.getTime() < clock.now())
    throw problems.gone('slot-expired', `The prepared ${what} expired; prepare again`);
}

/**
 * Stores the signed operation and moves it from prepared to submitted. Of two concurrent executions exactly one
 * wins; the same signed slot sent again while submitted (a retry after a lost answer, or after a crash before the
 * workflow started) is accepted so the caller can make sure the workflow runs. Anything else is 409.
 */
async function claimForSubmission(
  orm: Orm,
  operationId: string,
  signed: UserOperation,
  what: string,
  guard?: (tx: EntityManager) => Promise<void>,
): Promise<void> {
  const em = orm.em.fork();
  // The guard (a limit over the user's claimed operations) runs in the claim's transaction: it sees every claim before.
  const moved = await em.transactional(async (tx) => {
    await guard?.(tx);
    // Two operations prepared on one nonce before either was executed: the second is refused while the first is on
    // its way (it would take the first one's place in the bundler and in our records while the first lands).
    const own = await tx.findOne(SignedOperationEntity, { operationId });
    if (own?.status === 'prepared') {
      const onItsWay = (
        await tx.find(SignedOperationEntity, {
          networkId: own.networkId,
          accountAddress: own.accountAddress,
          status: 'submitted',
          operationId: { $ne: operationId },
        })
      ).find((o) => o.userOperation.nonce === signed.nonce.toString());
      if (onItsWay) throw operationInFlight(own.networkId, `${onItsWay.kind} ${onItsWay.operationId}`);
    }
    return tx.nativeUpdate(
      SignedOperationEntity,
      { operationId, status: 'prepared' },
      {
        status: 'submitted',
        userOperation: serializeOperation(signed),
      },
    );
  });
  if (moved === 1) return;
  const current = await em.findOneOrFail(SignedOperationEntity, { operationId });
  const handedOver = current.status === 'submitted' || current.status === 'stalled';
  if (!handedOver || current.userOperation.signature !== signed.signature) {
    throw problems.conflict('slot-already-used', `This ${what} was already executed`);
  }
}

/** A signed slot of an execute request, as its schema admits it. */
export interface SignedSlot {
  id: string;
  parameter: { authMethod?: string; algorithm?: string; keyUri?: string };
  signature: { authResponse: Record<string, unknown> & { signature?: string } };
}

/** What prepare records: one user operation of the user's account, waiting for the owner's signature. */
export interface PreparedOperationInput {
  operationId: string;
  kind: SignedOperationKind;
  userId: string;
  networkId: string;
  accountAddress: string;
  ownerAddress: string;
  details?: SignedOperationDetails;
  userOperation: UserOperation;
  userOpHash: string;
  expiresAt: Date;
}

/** Records a prepared operation; the caller's entity manager flushes it with whatever else prepare changes. */
export function recordPreparedOperation(em: Orm['em'], input: PreparedOperationInput): void {
  em.create(SignedOperationEntity, {
    ...input,
    details: input.details ?? {},
    userOperation: serializeOperation(input.userOperation),
    status: 'prepared',
  });
}

/** The user's operation of this kind, or null (another user's or another kind's id is not theirs to see). */
export async function findOperation(
  orm: Orm,
  userId: string,
  kind: SignedOperationKind,
  operationId: string,
): Promise<SignedOperation | null> {
  return orm.em.fork().findOne(SignedOperationEntity, { operationId, userId, kind });
}

/**
 * The one execute path of "prepare, sign, execute, submit" for a single user operation: the slot must be the one
 * prepared (same algorithm and owner key) and signed by the owner; a user with a passkey must approve this very
 * operation; the signed operation is claimed once (a resent identical slot resumes) and its workflow started once.
 */
export async function executeSingleOperation(
  deps: { orm: Orm; passkeys: Passkeys },
  userId: string,
  items: SignedSlot[],
  spec: {
    kind: SignedOperationKind;
    what: string;
    /** Only an operation on this network may be executed here (the deploy path names its network). */
    networkId?: string;
    /** The key that must sign; by default the owner it was prepared for. */
    signer?: (op: SignedOperation) => Promise<string>;
    /** A last check of a signed operation not yet claimed (a swap's simulation): it refuses before anything is handed over. */
    beforeClaim?: (op: SignedOperation) => Promise<void>;
    /** A check inside the claim's transaction (the swaps' daily limit, under a lock of the user): refuses the claim. */
    claimGuard?: (tx: EntityManager, op: SignedOperation) => Promise<void>;
    start: (op: SignedOperation) => Promise<unknown>;
  },
): Promise<SignedOperation> {
  const { onChain: slot, passkey } = splitSignedSlots(items);
  const op = await findOperation(deps.orm, userId, spec.kind, slot.id);
  if (!op || (spec.networkId && op.networkId !== spec.networkId)) throw problems.notFound(`Signing slot ${slot.id}`);
  if (op.status === 'completed' || op.status === 'failed' || op.status === 'replaced') {
    // The same signed slot again after the operation finished: a retry whose first answer was lost (found by the
    // cluster drill). It gets the same acceptance and starts nothing; any other signature is a reuse (409).
    if (!sameSignedSlot(op, slot, spec.signer ? await spec.signer(op).catch(() => op.ownerAddress) : op.ownerAddress)) {
      throw problems.conflict('slot-already-used', `This ${spec.what} was already executed`);
    }
    return op;
  }
  assertExecutable(op, spec.what);
  const signer = spec.signer ? await spec.signer(op) : op.ownerAddress;
  const signature = verifyOnChainSlot(slot, {
    algorithm: SINGLE_OPERATION_ALGORITHM,
    keyUri: keyUriOf(signer),
    payload: op.userOpHash,
    signer,
  });
  // A resumed execution (same signed slot, already submitted) was approved when it was claimed.
  if (op.status === 'prepared') await deps.passkeys.verifyApproval(userId, passkey, op.operationId, op.userOpHash);
  if (op.status === 'prepared') await spec.beforeClaim?.(op);
  const operation = { ...deserializeOperation(op.userOperation), signature: singleSignature(signature) };
  await claimForSubmission(
    deps.orm,
    op.operationId,
    operation,
    spec.what,
    spec.claimGuard && op.status === 'prepared' ? (tx) => spec.claimGuard!(tx, op) : undefined,
  );
  await startOnce(() => spec.start(op));
  return op;
}

/** Whether a slot carries the signature the finished operation was executed with. */
function sameSignedSlot(
  op: SignedOperation,
  slot: ReturnType<typeof splitSignedSlots>['onChain'],
  signer: string,
): boolean {
  try {
    const signature = verifyOnChainSlot(slot, {
      algorithm: SINGLE_OPERATION_ALGORITHM,
      keyUri: keyUriOf(signer),
      payload: op.userOpHash,
      signer,
    });
    return deserializeOperation(op.userOperation).signature === singleSignature(signature);
  } catch {
    return false;
  }
}

/** The slot a single user operation is signed in: the owner's signature over its EIP-712 userOpHash. */
export const SINGLE_OPERATION_ALGORITHM = 'eip712-erc4337-userop-v1';

/**
 * The prepare answer's slots for a single user operation: the owner signs its userOpHash (EIP-712 domain of the
 * network's EntryPoint, plus what the app should show), and a user with a passkey approves this very operation.
 */
export async function preparedSlots(
  passkeys: Passkeys,
  userId: string,
  input: {
    id: string;
    owner: string;
    network: { chainId: number; entryPoint: string };
    domain: Record<string, unknown>;
    userOpHash: string;
  },
) {
  const slot = {
    id: input.id,
    parameter: {
      algorithm: SINGLE_OPERATION_ALGORITHM,
      keyUri: keyUriOf(input.owner),
      domain: {
        name: 'ERC4337',
        version: '1',
        chainId: input.network.chainId,
        verifyingContract: input.network.entryPoint,
        ...input.domain,
      },
    },
    payload: input.userOpHash,
  };
  return [slot, ...optional(await passkeys.slotFor(userId, input.id, input.userOpHash))];
}

/** A stalled operation's reason and a replaced one's successor, as every operation view shows them. */
export const progressOf = (op: Pick<SignedOperation, 'stallReason' | 'replacedBy'>) => ({
  stallReason: op.stallReason === 'fees-rose' ? ('fees-rose' as const) : null,
  replacedBy: op.replacedBy ?? null,
});
