import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { TransferEntity } from '../../db/entities';
import { PREPARE_ATTEMPTS, createTransferPreparationActivities } from '../../activities/transfer-prepare';
import type { SubmittedTransfer } from '../../activities/transfer';
import { TransferFailure } from '../../platform/failures';
import { testDatabases } from '../helpers/databases';
import { useMigratedOrm } from '../helpers/orm';

/**
 * sendTransfer (transfers of version 4 on): the last screening and the signing, then the submission, as one activity
 * whose retries find what an earlier attempt did. Its own database (SQLite: the rule is the activity's, not the
 * dialect's), the screening, the signing and the submission stubbed: what it calls, on which attempt, and what fails.
 */
describe('sendTransfer', () => {
  const { orm } = useMigratedOrm(testDatabases()[0]!);
  let calls: string[] = [];
  let screening: () => Promise<void> = async () => undefined;
  const sent: SubmittedTransfer = { success: true, txHash: '0xabc', fee: '1', block: { number: '7', hash: '0xb7' } };
  const activities = () =>
    createTransferPreparationActivities(
      { orm: orm() },
      {
        screenTransferRecipient: async () => {
          calls.push('screen');
          await screening();
        },
      },
      {
        // As the real one: nothing signed before the screening passed.
        signTransfer: async ({ transferId }, _read, screened = Promise.resolve()) => {
          await screened;
          calls.push('sign');
          await orm()
            .em.fork()
            .nativeUpdate(TransferEntity, { transferId }, { userOperation: { signed: true }, userOpHash: '0x01' });
        },
        submitTransfer: async ({ record }) => {
          calls.push(`submit${record ? ':record' : ''}`);
          return sent;
        },
      },
    );
  const transfer = async (): Promise<string> => {
    const transferId = `tr_${randomUUID()}`;
    const em = orm().em.fork();
    em.create(TransferEntity, {
      transferId,
      userId: 'usr_1',
      networkId: 'ETHEREUM',
      token: 'ETH',
      decimals: 18,
      fromAddress: '0x1111111111111111111111111111111111111111',
      toAddress: '0x2222222222222222222222222222222222222222',
      amount: '1000',
      status: 'processing',
    });
    await em.flush();
    return transferId;
  };
  const send = (transferId: string, attempt: number) =>
    new MockActivityEnvironment({ attempt }).run(activities().sendTransfer, { transferId });
  beforeEach(() => {
    calls = [];
    screening = async () => undefined;
  });

  it('screens, signs, then submits with the outcome recorded; a retry after signing neither screens nor signs again', async () => {
    const transferId = await transfer();
    await expect(send(transferId, 1)).resolves.toEqual(sent);
    expect(calls).toEqual(['screen', 'sign', 'submit:record']);
    // The list names the recipient now: an operation already signed (maybe handed over) is sent as it is, not refused.
    screening = async () => {
      throw ApplicationFailure.nonRetryable('listed now', TransferFailure.RecipientSanctioned);
    };
    calls = [];
    await expect(send(transferId, 2)).resolves.toEqual(sent);
    expect(calls).toEqual(['submit:record']);
  });

  it('passes a refusal on as it is, and retries a screening that cannot answer for its attempts, then fails it', async () => {
    const sanctioned = await transfer();
    screening = async () => {
      throw ApplicationFailure.nonRetryable('the recipient is sanctioned', TransferFailure.RecipientSanctioned);
    };
    await expect(send(sanctioned, 1)).rejects.toMatchObject({
      type: TransferFailure.RecipientSanctioned,
      nonRetryable: true,
    });
    expect(calls).toEqual(['screen']); // nothing signed, nothing sent

    const unanswered = await transfer();
    screening = async () => {
      throw ApplicationFailure.create({ type: TransferFailure.ScreeningUnavailable, message: 'provider down' });
    };
    // Retried (the activity's retry policy) while attempts remain...
    await expect(send(unanswered, PREPARE_ATTEMPTS - 1)).rejects.toMatchObject({
      type: TransferFailure.ScreeningUnavailable,
      nonRetryable: false,
    });
    // ...then final: the transfer fails with the screening's refusal after about two minutes, not thirty attempts.
    await expect(send(unanswered, PREPARE_ATTEMPTS)).rejects.toMatchObject({
      type: TransferFailure.ScreeningUnavailable,
      nonRetryable: true,
      message: 'provider down',
    });
    // Any other failure before sending is final then too (the workflow records the transfer failed, nothing was sent).
    screening = async () => {
      throw new Error('connect ECONNREFUSED');
    };
    await expect(send(unanswered, PREPARE_ATTEMPTS)).rejects.toMatchObject({
      nonRetryable: true,
      message: 'connect ECONNREFUSED',
    });
    expect(calls.filter((c) => c !== 'screen')).toEqual([]);
  });
});
