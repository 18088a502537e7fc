import { randomUUID } from 'node:crypto';
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { registrationWorkflow, MAX_EKYC_ATTEMPTS } from '../../workflows/registration';
import {
  RegistrationFailure,
  passResultSignal,
  registrationStateQuery,
  startRegistrationUpdate,
  submitBackupUpdate,
  submitEkycUpdate,
  type PassResult,
} from '../../workflows/messages';
import type { RegistrationActivities } from '../../activities/registration';
import { workflowTestWorker } from '../helpers/workflow-env';

/**
 * The registration workflow's branches, fast: the real workflow code on the test run's Temporal server, its
 * activities stubbed (what each was called with is recorded), seconds-long timeouts. The end-to-end suites run the
 * same workflow with the real activities; these pin each decision of the workflow on its own.
 */
describe('registration workflow (stubbed activities)', () => {
  let harness: Awaited<ReturnType<typeof workflowTestWorker>>;
  /** Per registration: the activities it called, in order, and what the OCR stub answers. */
  const calls = new Map<string, Array<[string, unknown]>>();
  const ocrVerified = new Map<string, boolean>();
  const record = (regId: string, name: string, input: unknown) =>
    calls.set(regId, [...(calls.get(regId) ?? []), [name, input]]);

  const activities: Pick<
    RegistrationActivities,
    | 'recordPassResult'
    | 'bindRegistrationToDevice'
    | 'runIdCardOcr'
    | 'recordRegistrationStep'
    | 'storeWalletBackup'
    | 'createUserFromRegistration'
    | 'closeRegistration'
  > = {
    async recordPassResult(input) {
      record(input.regId, 'recordPassResult', input.result.success);
      return { name: '홍길동', phone: '01012345678' } as never;
    },
    async bindRegistrationToDevice(input) {
      record(input.regId, 'bindRegistrationToDevice', input.deviceId);
    },
    async runIdCardOcr(input) {
      record(input.regId, 'runIdCardOcr', input.uploadRef);
      return { name: '홍길동', birthDate: '1990-01-15', verified: ocrVerified.get(input.regId) ?? true };
    },
    async recordRegistrationStep(input) {
      record(input.regId, 'recordRegistrationStep', input.step);
    },
    async storeWalletBackup(input) {
      record(input.regId, 'storeWalletBackup', input.encryptionMethod);
      return `bkp_${input.regId}`;
    },
    async createUserFromRegistration(input) {
      record(input.regId, 'createUserFromRegistration', input.backupId);
      return `usr_${input.regId}`;
    },
    async closeRegistration(input) {
      record(input.regId, 'closeRegistration', input.status);
    },
  };

  beforeAll(async () => {
    harness = await workflowTestWorker(activities);
  });
  afterAll(async () => {
    await harness?.stop();
  });

  const start = async (options: { ttlSeconds?: number; passResultWaitSeconds?: number } = {}) => {
    const regId = `reg_${randomUUID().replaceAll('-', '').slice(0, 24)}`;
    const handle = await harness.env.client.workflow.start(registrationWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `registration-${regId}`,
      args: [
        {
          regId,
          passRequestId: `pr_${regId}`,
          ttlSeconds: options.ttlSeconds ?? 60,
          passResultWaitSeconds: options.passResultWaitSeconds ?? 5,
        },
      ],
    });
    return { regId, handle };
  };
  const pass = (handle: WorkflowHandle, regId: string, success = true) =>
    handle.signal(passResultSignal, { passRequestId: `pr_${regId}`, success, name: '홍길동' } as PassResult);
  const device = {
    deviceId: 'device-1',
    passTokenHash: 'hash-1',
    passTokenExpiresAt: new Date(Date.now() + 600_000).toISOString(),
  };
  const backup = { encryptedMnemonic: 'm', encryptedDerivationPaths: 'p', encryptionMethod: 'AES-256-GCM' };
  const failureType = async (promise: Promise<unknown>) => {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WorkflowUpdateFailedError);
    return ((error as WorkflowUpdateFailedError).cause as { type?: string }).type;
  };

  it('completes: pass -> start -> eKYC -> backup -> user, each activity once and in order', async () => {
    const { regId, handle } = await start();
    await pass(handle, regId);
    expect(await handle.executeUpdate(startRegistrationUpdate, { args: [device] })).toMatchObject({
      regId,
      step: 'ekyc',
    });
    // The same app repeating its start gets the same answer; another device is refused.
    expect(await handle.executeUpdate(startRegistrationUpdate, { args: [device] })).toMatchObject({ step: 'ekyc' });
    expect(
      await failureType(handle.executeUpdate(startRegistrationUpdate, { args: [{ ...device, deviceId: 'device-2' }] })),
    ).toBe(RegistrationFailure.AlreadyStarted);
    expect(
      await handle.executeUpdate(submitEkycUpdate, { args: [{ uploadRef: 'upl_1', idCardType: 'resident_id' }] }),
    ).toMatchObject({ step: 'backup' });
    expect(await handle.executeUpdate(submitBackupUpdate, { args: [backup] })).toEqual({
      step: 'completed',
      backupId: `bkp_${regId}`,
    });
    expect(await handle.result()).toEqual({ status: 'completed', userId: `usr_${regId}` });
    expect(calls.get(regId)!.map(([name]) => name)).toEqual([
      'recordPassResult',
      'bindRegistrationToDevice',
      'runIdCardOcr',
      'recordRegistrationStep',
      'storeWalletBackup',
      'createUserFromRegistration',
    ]);
  });

  it('refuses a step out of order without calling anything', async () => {
    const { regId, handle } = await start();
    await pass(handle, regId);
    await handle.executeUpdate(startRegistrationUpdate, { args: [device] });
    expect(await failureType(handle.executeUpdate(submitBackupUpdate, { args: [backup] }))).toBe(
      RegistrationFailure.StepOutOfOrder,
    );
    expect(await handle.query(registrationStateQuery)).toMatchObject({ step: 'ekyc', status: 'in_progress' });
    expect(calls.get(regId)!.map(([name]) => name)).toEqual(['recordPassResult', 'bindRegistrationToDevice']);
    await handle.terminate('test done');
  });

  it(`fails after ${MAX_EKYC_ATTEMPTS} eKYC readings that do not match, and closes the registration as failed`, async () => {
    const { regId, handle } = await start();
    ocrVerified.set(regId, false);
    await pass(handle, regId);
    await handle.executeUpdate(startRegistrationUpdate, { args: [device] });
    for (let i = 0; i < MAX_EKYC_ATTEMPTS; i += 1) {
      expect(
        await handle.executeUpdate(submitEkycUpdate, { args: [{ uploadRef: `upl_${i}`, idCardType: 'resident_id' }] }),
      ).toMatchObject({ step: 'ekyc', ocrResult: { verified: false } });
    }
    expect(await handle.result()).toEqual({ status: 'failed' });
    expect(calls.get(regId)!.filter(([name]) => name === 'runIdCardOcr')).toHaveLength(MAX_EKYC_ATTEMPTS);
    expect(calls.get(regId)!.at(-1)).toEqual(['closeRegistration', 'failed']);
  });

  it('refuses to start when identity verification failed, and ends failed when its time is up', async () => {
    const { regId, handle } = await start({ ttlSeconds: 2 });
    await pass(handle, regId, false);
    expect(await failureType(handle.executeUpdate(startRegistrationUpdate, { args: [device] }))).toBe(
      RegistrationFailure.PassVerificationFailed,
    );
    expect(await handle.result()).toEqual({ status: 'failed' });
    expect(calls.get(regId)!.at(-1)).toEqual(['closeRegistration', 'failed']);
  });

  it('asks the app to retry a start that came before the identity result, and expires a registration left alone', async () => {
    const { regId, handle } = await start({ ttlSeconds: 3, passResultWaitSeconds: 1 });
    expect(await failureType(handle.executeUpdate(startRegistrationUpdate, { args: [device] }))).toBe(
      RegistrationFailure.PassResultPending,
    );
    expect(await handle.result()).toEqual({ status: 'expired' });
    expect(calls.get(regId)).toEqual([['closeRegistration', 'expired']]);
  });
});
