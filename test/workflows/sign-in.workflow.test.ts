import { randomUUID } from 'node:crypto';
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { signInWorkflow } from '../../workflows/sign-in';
import {
  RegistrationFailure,
  SignInFailure,
  idCardProofUpdate,
  passResultSignal,
  passkeyProofUpdate,
  startSignInUpdate,
  type PassResult,
  type SignInProof,
} from '../../workflows/messages';
import type { IdCardCheck, SignInActivities } from '../../activities/sign-in';
import { workflowTestWorker } from '../helpers/workflow-env';

/**
 * The sign-in workflow's branches, fast: the records and the card check stubbed per sign-in (which proofs the account
 * has, what each card check says), every call recorded.
 */
describe('sign-in workflow (stubbed activities)', () => {
  let harness: Awaited<ReturnType<typeof workflowTestWorker>>;
  const proofsOf = new Map<string, SignInProof[]>();
  const cardChecks = new Map<string, IdCardCheck[]>();
  const calls = new Map<string, string[]>();
  const record = (id: string, call: string) => calls.set(id, [...(calls.get(id) ?? []), call]);

  const activities: Pick<SignInActivities, 'recordSignIn' | 'completeSignIn' | 'closeSignIn' | 'checkSignInIdCard'> = {
    async recordSignIn({ signInId }) {
      record(signInId, 'record');
      return { userId: 'usr_1', proofs: proofsOf.get(signInId)! } as never;
    },
    async checkSignInIdCard({ signInId }) {
      record(signInId, 'checkCard');
      const checks = cardChecks.get(signInId)!;
      return checks.length > 1 ? checks.shift()! : checks[0]!;
    },
    async completeSignIn({ signInId, method }) {
      record(signInId, `complete:${method}`);
    },
    async closeSignIn({ signInId, status }) {
      record(signInId, `close:${status}`);
    },
  };

  beforeAll(async () => {
    harness = await workflowTestWorker(activities);
  });
  afterAll(async () => {
    await harness?.stop();
  });

  const MAX_CARDS = 3;
  const signIn = async (proofs: SignInProof[], options: { ttlSeconds?: number; cards?: IdCardCheck[] } = {}) => {
    const signInId = `si_${randomUUID()}`;
    proofsOf.set(signInId, proofs);
    cardChecks.set(signInId, options.cards ?? [{ ok: true }]);
    const handle = await harness.env.client.workflow.start(signInWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `sign-in-${signInId}`,
      args: [
        {
          signInId,
          passRequestId: `pr_${signInId}`,
          ttlSeconds: options.ttlSeconds ?? 60,
          passResultWaitSeconds: 5,
          maxIdCardAttempts: MAX_CARDS,
        },
      ],
    });
    return { signInId, handle };
  };
  const pass = (handle: WorkflowHandle, signInId: string, success = true) =>
    handle.signal(passResultSignal, { passRequestId: `pr_${signInId}`, success } as PassResult);
  const device = {
    deviceId: 'new-phone',
    deviceLabel: 'Galaxy',
    passTokenHash: 'h',
    passTokenExpiresAt: new Date(Date.now() + 600_000).toISOString(),
  };
  const card = { uploadRef: 'upl_1', idCardType: 'resident_id' };
  const refusal = async (promise: Promise<unknown>) => {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WorkflowUpdateFailedError);
    const cause = (error as WorkflowUpdateFailedError).cause as { type?: string; details?: unknown[] };
    return { type: cause.type, details: cause.details };
  };

  it('completes with a passkey of the account', async () => {
    const { signInId, handle } = await signIn(['passkey', 'id_card']);
    await pass(handle, signInId);
    expect(await handle.executeUpdate(startSignInUpdate, { args: [device] })).toMatchObject({
      proofs: ['passkey', 'id_card'],
    });
    expect(await handle.executeUpdate(passkeyProofUpdate, { args: [{ passkeyId: 'pk_1' }] })).toMatchObject({
      status: 'completed',
      method: 'passkey',
    });
    expect(await handle.result()).toEqual({ status: 'completed', method: 'passkey' });
    expect(calls.get(signInId)).toEqual(['record', 'complete:passkey']);
  });

  it('refuses a proof the account does not have, and a proof before the start', async () => {
    const { signInId, handle } = await signIn(['id_card']);
    expect((await refusal(handle.executeUpdate(passkeyProofUpdate, { args: [{ passkeyId: 'pk_1' }] }))).type).toBe(
      SignInFailure.NotInProgress,
    );
    await pass(handle, signInId);
    await handle.executeUpdate(startSignInUpdate, { args: [device] });
    expect((await refusal(handle.executeUpdate(passkeyProofUpdate, { args: [{ passkeyId: 'pk_1' }] }))).type).toBe(
      SignInFailure.NotInProgress,
    );
    expect(await handle.executeUpdate(idCardProofUpdate, { args: [card] })).toMatchObject({ method: 'id_card' });
    expect(await handle.result()).toEqual({ status: 'completed', method: 'id_card' });
  });

  it('counts wrong cards down, then fails the sign-in on the last one', async () => {
    const wrong: IdCardCheck = {
      ok: false,
      failure: SignInFailure.IdCardMismatch as never,
      message: 'not the card verified at registration',
    };
    const { signInId, handle } = await signIn(['id_card'], { cards: [wrong] });
    await pass(handle, signInId);
    await handle.executeUpdate(startSignInUpdate, { args: [device] });
    for (let left = MAX_CARDS - 1; left >= 1; left -= 1) {
      expect(await refusal(handle.executeUpdate(idCardProofUpdate, { args: [card] }))).toEqual({
        type: SignInFailure.IdCardMismatch,
        details: [{ attemptsLeft: left }],
      });
    }
    expect((await refusal(handle.executeUpdate(idCardProofUpdate, { args: [card] }))).type).toBe(
      SignInFailure.TooManyAttempts,
    );
    expect(await handle.result()).toEqual({ status: 'failed' });
    expect(calls.get(signInId)).toEqual(['record', 'checkCard', 'checkCard', 'checkCard', 'close:failed']);
  });

  it('refuses another device taking over a started sign-in, and expires one left unproved', async () => {
    const { signInId, handle } = await signIn(['passkey'], { ttlSeconds: 2 });
    await pass(handle, signInId);
    await handle.executeUpdate(startSignInUpdate, { args: [device] });
    expect(
      (await refusal(handle.executeUpdate(startSignInUpdate, { args: [{ ...device, deviceId: 'thief' }] }))).type,
    ).toBe(RegistrationFailure.AlreadyStarted);
    expect(await handle.result()).toEqual({ status: 'expired' });
    expect(calls.get(signInId)).toEqual(['record', 'close:expired']);
  });
});
