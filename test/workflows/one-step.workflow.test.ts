import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowFailedError } from '@temporalio/client';
import { bankVerificationWorkflow } from '../../workflows/bank-verification';
import { emailVerificationWorkflow } from '../../workflows/email-verification';
import { gasSponsorshipWorkflow } from '../../workflows/gas-sponsorship';
import { custodyKeyWorkflow } from '../../workflows/custody';
import { kycRenewalWorkflow } from '../../workflows/kyc';
import { BankFailure, GasFailure, PROVIDER_REJECTED } from '../../platform/failures';
import type { BankVerificationActivities } from '../../activities/bank-verification';
import type { EmailVerificationActivities } from '../../activities/email-verification';
import type { GasSponsorshipActivities } from '../../activities/gas-sponsorship';
import type { CustodyActivities } from '../../activities/custody';
import type { KycActivities } from '../../activities/kyc';
import { workflowTestWorker } from '../helpers/workflow-env';

/** What an activity does on each call for one key, in turn (the last repeats): succeed, fail for a while, or refuse. */
type Step = 'ok' | 'down' | 'refused';

/**
 * The workflows of one activity: what matters in each is its retry policy, i.e. what is tried again and what is not
 * (a refusal by the bank, the mail provider or the gas budget is final: asking again would not change it, and a 1 KRW
 * deposit or a mail must not be sent twice on the strength of a guess). Run with stubbed activities.
 */
describe('one-step workflows (stubbed activities)', () => {
  let harness: Awaited<ReturnType<typeof workflowTestWorker>>;
  const scripts = new Map<string, Step[]>();
  const attempts = new Map<string, number>();
  const step = (key: string, refusalType: string): void => {
    attempts.set(key, (attempts.get(key) ?? 0) + 1);
    const script = scripts.get(key) ?? ['ok'];
    const next = script.length > 1 ? script.shift()! : script[0]!;
    if (next === 'down') throw new Error('ETIMEDOUT');
    if (next === 'refused') throw ApplicationFailure.nonRetryable('refused', refusalType);
  };

  const activities: BankVerificationActivities &
    EmailVerificationActivities &
    Pick<GasSponsorshipActivities, 'sponsorOperations'> &
    CustodyActivities &
    Pick<KycActivities, 'renewKyc'> = {
    async sendVerificationDeposit({ verificationId }) {
      step(verificationId, BankFailure.DepositRefused);
    },
    async sendVerificationEmail({ verificationId }) {
      step(verificationId, PROVIDER_REJECTED);
    },
    async sponsorOperations({ userId, operations }) {
      step(userId, GasFailure.BudgetExceeded);
      return operations.map((o) => `0xpaymaster${o.sponsorshipId}`);
    },
    async renewKyc({ userId }) {
      step(userId, 'never');
      return { verified: true, ocrResult: { name: '홍길동', birthDate: '1990-01-15', verified: true }, vcId: 'vc_new' };
    },
    async openCustodyKey({ userId }) {
      step(userId, 'never');
      return { address: '0x00000000000000000000000000000000000000aa', created: true };
    },
  };

  beforeAll(async () => {
    harness = await workflowTestWorker(activities);
  });
  afterAll(async () => {
    await harness?.stop();
  });

  const execute = <A extends unknown[], R>(workflow: (...args: A) => Promise<R>, args: A) =>
    harness.env.client.workflow.execute(workflow, {
      taskQueue: harness.taskQueue,
      workflowId: `one-step-${randomUUID()}`,
      args,
    });
  const failureOf = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: WorkflowFailedError) => error.cause?.cause as ApplicationFailure | undefined,
    );

  it('1 KRW deposit: sent; a refusal by the bank is final (one attempt); a bank that does not answer is tried three times', async () => {
    await execute(bankVerificationWorkflow, [{ verificationId: 'bv_ok', remark: 'WALLET 123' }]);
    expect(attempts.get('bv_ok')).toBe(1);
    scripts.set('bv_refused', ['refused']);
    expect(
      await failureOf(execute(bankVerificationWorkflow, [{ verificationId: 'bv_refused', remark: 'x' }])),
    ).toMatchObject({
      type: BankFailure.DepositRefused,
    });
    expect(attempts.get('bv_refused')).toBe(1);
    scripts.set('bv_down', ['down']);
    await failureOf(execute(bankVerificationWorkflow, [{ verificationId: 'bv_down', remark: 'x' }]));
    expect(attempts.get('bv_down')).toBe(3);
  });

  it('verification mail: a provider that answers late is tried again; one that refuses is not', async () => {
    scripts.set('ev_late', ['down', 'ok']);
    await execute(emailVerificationWorkflow, [{ verificationId: 'ev_late', code: '123456' }]);
    expect(attempts.get('ev_late')).toBe(2);
    scripts.set('ev_refused', ['refused']);
    expect(
      await failureOf(execute(emailVerificationWorkflow, [{ verificationId: 'ev_refused', code: '1' }])),
    ).toMatchObject({
      type: PROVIDER_REJECTED,
    });
    expect(attempts.get('ev_refused')).toBe(1);
  });

  it('gas sponsorship: one paymaster answer per operation; over the budget is final', async () => {
    const operations = [
      { sponsorshipId: '1', networkId: 'ETHEREUM', userOperation: {} },
      { sponsorshipId: '2', networkId: 'POLYGON', userOperation: {} },
    ];
    expect(await execute(gasSponsorshipWorkflow, [{ userId: 'usr_gas', validUntil: 0, operations }])).toEqual([
      '0xpaymaster1',
      '0xpaymaster2',
    ]);
    scripts.set('usr_over', ['refused']);
    expect(
      await failureOf(execute(gasSponsorshipWorkflow, [{ userId: 'usr_over', validUntil: 0, operations }])),
    ).toMatchObject({ type: GasFailure.BudgetExceeded });
    expect(attempts.get('usr_over')).toBe(1);
  });

  it('custody key: a store that fails for a moment is tried again and the key is answered', async () => {
    scripts.set('usr_key', ['down', 'ok']);
    expect(await execute(custodyKeyWorkflow, [{ userId: 'usr_key', kind: 'solana-wallet' }])).toEqual({
      address: '0x00000000000000000000000000000000000000aa',
      created: true,
    });
    expect(attempts.get('usr_key')).toBe(2);
  });

  it('KYC renewal: an OCR provider down for a moment is asked again; down for good, the renewal fails within its attempts', async () => {
    scripts.set('usr_ocr_late', ['down', 'ok']);
    expect(
      await execute(kycRenewalWorkflow, [{ userId: 'usr_ocr_late', uploadRef: 'up_1', idCardType: 'resident_id' }]),
    ).toMatchObject({
      verified: true,
      vcId: 'vc_new',
    });
    expect(attempts.get('usr_ocr_late')).toBe(2);
    scripts.set('usr_ocr_down', ['down']);
    await failureOf(
      execute(kycRenewalWorkflow, [{ userId: 'usr_ocr_down', uploadRef: 'up_2', idCardType: 'resident_id' }]),
    );
    expect(attempts.get('usr_ocr_down')).toBe(5);
  }, 30_000);
});
