import type { EntityManager } from '@mikro-orm/core';
import type { Orm } from '../db/orm';
import { SignedOperationEntity, SmartAccountEntity, type SignedOperation } from '../db/entities';
import { confirmationsOf, type NetworkRegistry } from '../platform/networks';
import type { Bundlers } from '../integrations/evm/bundlers';
import { deserializeOperation, isDeployed, type ChainProviders } from '../integrations/evm/smart-account';
import { submitOnce } from './submit-once';
import type { GasSponsor } from './gas-sponsorship';
import { appendEvent } from '../db/events';
import type { CredentialBook } from './credentials';
import { clock } from '../platform/clock';
import type { SignedSubmission } from '../workflows/messages';

export interface SignedOperationActivityDeps {
  orm: Orm;
  networks: NetworkRegistry;
  providers: ChainProviders;
  bundlers: Bundlers;
  gasSponsor: GasSponsor;
  credentials: CredentialBook;
}

type Outcome = { status: 'completed'; txHash?: string | null } | { status: 'failed'; error: string };

/**
 * Chain and storage side of signed operations (deployments, DID keys, transfer key changes): one submit and one finish over the one table.
 * Each kind keeps its activity names, which the deploy and DID key workflow histories record.
 */
export const createSignedOperationActivities = ({
  orm,
  providers,
  bundlers,
  gasSponsor,
  credentials,
}: SignedOperationActivityDeps) => {
  /**
   * An operation of the same account and nonce prepared after this one and handed over for submission: the owner
   * signed it again (at higher fees: see priceAboveInFlight), so the bundler holds it in this one's place.
   */
  async function successorOf(em: EntityManager, op: SignedOperation): Promise<string | null> {
    const nonce = op.userOperation.nonce;
    const later = await em.find(
      SignedOperationEntity,
      {
        networkId: op.networkId,
        accountAddress: op.accountAddress,
        status: { $in: ['submitted', 'stalled', 'completed'] },
        operationId: { $ne: op.operationId },
        createdAt: { $gte: op.createdAt },
      },
      { orderBy: { createdAt: 'asc' }, disableIdentityMap: true },
    );
    // A later operation takes this one's place only once it was handed to the bundler: one claimed but refused
    // before it was sent (a swap its simulation refused) never stood on the nonce, and this one may still land.
    return (
      later.find(
        (other) =>
          other.userOperation.nonce === nonce && (other.status !== 'submitted' || other.details.handedOver === true),
      )?.operationId ?? null
    );
  }

  /** Submits the signed operation once; safe to retry at any point (see submitOnce). */
  async function submit(
    operationId: string,
    alreadyDone?: (op: SignedOperation) => Promise<boolean>,
  ): Promise<SignedSubmission> {
    const em = orm.em.fork();
    const op = await em.findOneOrFail(SignedOperationEntity, { operationId });
    const submitted = await submitOnce({
      networkId: op.networkId,
      bundler: bundlers.for(op.networkId),
      entryPoint: bundlers.entryPoint(op.networkId),
      inclusion: bundlers.inclusion(op.networkId),
      operation: deserializeOperation(op.userOperation),
      userOpHash: op.userOpHash,
      // The userOpHash was stored when the operation was prepared; what is recorded is that it is being handed over.
      recordSubmitted: async () => {
        if (op.details.handedOver) return;
        op.details = { ...op.details, handedOver: true };
        await em.flush();
      },
      ...(alreadyDone ? { alreadyDone: () => alreadyDone(op) } : {}),
      settle: (outcome) => gasSponsor.settle(outcome),
      observer: bundlers.observer,
      supersededBy: () => successorOf(em, op),
      // Completed means final: a deployment, a swap or a key change a reorg could still take back is not recorded done.
      finalAfter: confirmationsOf(bundlers.network(op.networkId)),
    });
    if ('stalled' in submitted) return { stalled: submitted.stalled };
    if ('replacedBy' in submitted) return { replacedBy: submitted.replacedBy };
    if (!submitted.ran) return { txHash: null };
    op.txHash = submitted.receipt.txHash;
    await em.flush();
    return { txHash: submitted.receipt.txHash };
  }

  /**
   * Records the outcome, with what a completed operation of this kind changes and its event (deploy.completed,
   * did_key.failed, ...: the first time only), in one transaction.
   */
  async function finish(
    operationId: string,
    outcome: Outcome,
    onCompleted?: (em: EntityManager, op: SignedOperation) => Promise<void>,
  ): Promise<void> {
    await orm.em.fork().transactional(async (em) => {
      const op = await em.findOneOrFail(SignedOperationEntity, { operationId });
      if (op.status !== outcome.status) {
        const subject = { opId: operationId, networkId: op.networkId, accountAddress: op.accountAddress };
        await appendEvent(
          em,
          outcome.status === 'completed'
            ? {
                type: `${op.kind}.completed`,
                resourceId: operationId,
                userId: op.userId,
                data: { ...subject, txHash: outcome.txHash ?? op.txHash ?? '' },
              }
            : {
                type: `${op.kind}.failed`,
                resourceId: operationId,
                userId: op.userId,
                data: { ...subject, error: outcome.error },
              },
        );
      }
      if (outcome.status === 'completed') {
        Object.assign(op, {
          status: 'completed',
          txHash: outcome.txHash ?? op.txHash ?? null,
          error: null,
          stallReason: null,
        });
        await onCompleted?.(em, op);
      } else {
        Object.assign(op, { status: 'failed', error: outcome.error });
      }
    });
  }

  /** The outcome of an operation whose completion changes nothing else (DID key, transfer key change). */
  const finishOperation = (input: {
    opId: string;
    status: 'completed' | 'failed';
    txHash?: string | null;
    error?: string;
  }) =>
    finish(
      input.opId,
      input.status === 'completed'
        ? { status: 'completed', txHash: input.txHash }
        : { status: 'failed', error: input.error ?? 'failed' },
    );

  const accountDeployed = async (em: EntityManager, op: SignedOperation) => {
    const account = await em.findOneOrFail(SmartAccountEntity, { userId: op.userId, networkId: op.networkId });
    Object.assign(account, {
      status: 'deployed',
      deployTxHash: op.txHash,
      deployedAt: account.deployedAt ?? clock.date(),
    });
  };

  /**
   * Moves an operation to `status` (with `fields`) if it is in one of `from`, with its `<kind>.<status>` event naming
   * `data`, in one transaction; an operation already past it is left as it is (a retried activity records it once).
   */
  async function moveOperation(
    operationId: string,
    from: SignedOperation['status'][],
    status: 'stalled' | 'replaced',
    fields: Partial<SignedOperation>,
    data: Record<string, string>,
  ): Promise<void> {
    await orm.em.fork().transactional(async (em) => {
      const op = await em.findOneOrFail(SignedOperationEntity, { operationId });
      if (!from.includes(op.status)) return;
      Object.assign(op, { status, ...fields });
      await appendEvent(em, {
        type: `${op.kind}.${status}`,
        resourceId: op.operationId,
        userId: op.userId,
        data: { opId: op.operationId, networkId: op.networkId, accountAddress: op.accountAddress, ...data },
      } as Parameters<typeof appendEvent>[1]);
    });
  }

  /** Records a stalled operation (the first time: `<kind>.stalled`), so the app can have the owner sign it again. */
  const recordOperationStalled = ({
    operationId,
    ...stall
  }: {
    operationId: string;
    reason: 'fees-rose';
    maxFeePerGas: string;
    baseFeePerGas: string;
  }): Promise<void> => moveOperation(operationId, ['submitted'], 'stalled', { stallReason: stall.reason }, stall);

  /** Records that the owner's new signature of the same operation took this one's place (`<kind>.replaced`). */
  const recordOperationReplaced = ({ operationId, replacedBy }: { operationId: string; replacedBy: string }) =>
    moveOperation(operationId, ['prepared', 'submitted', 'stalled'], 'replaced', { replacedBy }, { replacedBy });

  return {
    recordOperationStalled,
    recordOperationReplaced,
    submitDeployment: ({ jobId }: { jobId: string }) =>
      submit(jobId, (op) => isDeployed(providers.for(bundlers.network(op.networkId)), op.accountAddress)),
    // On the DID network, the deployment makes the user's did:ethr: their KYC credential is issued again naming them.
    completeDeployment: async ({ jobId, txHash }: { jobId: string; txHash: string | null }) => {
      const statusList = await credentials.openList();
      await finish(jobId, { status: 'completed', txHash }, async (em, op) => {
        await accountDeployed(em, op);
        await credentials.bindKycToHolder(em, statusList, {
          userId: op.userId,
          networkId: op.networkId,
          accountAddress: op.accountAddress,
        });
      });
    },
    failDeployment: ({ jobId, error }: { jobId: string; error: string }) => finish(jobId, { status: 'failed', error }),

    // Attributes can be set again, so the chain shows no unique effect: an operation that ran is found by its
    // userOpHash, and one whose nonce another operation used is refused (AA25).
    submitDidKey: ({ opId }: { opId: string }) => submit(opId),
    finishDidKey: finishOperation,

    // The grant can be set again to the same values: like DID keys, found by its userOpHash or refused (AA25).
    submitTransferKeyChange: ({ opId }: { opId: string }) => submit(opId),
    // A swap that ran is found by its userOpHash; otherwise its used nonce is refused (AA25).
    submitSwap: ({ opId }: { opId: string }) => submit(opId),
    finishTransferKeyChange: finishOperation,

    // An upgrade or a cancellation that ran is found by its userOpHash; otherwise its used nonce is refused (AA25).
    submitAccountUpgrade: ({ opId }: { opId: string }) => submit(opId),
    finishAccountUpgrade: finishOperation,
    submitRecoveryCancel: ({ opId }: { opId: string }) => submit(opId),
    finishRecoveryCancel: finishOperation,
  };
};

export type SignedOperationActivities = ReturnType<typeof createSignedOperationActivities>;
