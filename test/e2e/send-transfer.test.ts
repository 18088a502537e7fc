import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { TransferEntity } from '../../db/entities';
import { PREPARE_ATTEMPTS, createTransferPreparationActivities } from '../../activities/transfer-prepare';
import { finishTransferRecord, handOver, type SubmittedTransfer } from '../../activities/transfer';
import type { Orm } from '../../db/orm';
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
  /** What each submission was given of the row (undefined: it reads the row itself). */
  let submittedRows: Array<{ status: string; userOpHash?: string | null } | undefined> = [];
  /** Whether the signing tells the row it stored (false: another attempt stored one first). */
  let tellSigned = true;
  let screening: () => Promise<void> = async () => undefined;
  const sent: SubmittedTransfer = { success: true, txHash: '0xabc', fee: '1', block: { number: '7', hash: '0xb7' } };
  const activities = (database: Orm = orm()) =>
    createTransferPreparationActivities(
      { orm: database },
      {
        screenTransferRecipient: async () => {
          calls.push('screen');
          await screening();
        },
      },
      {
        // As the real one: nothing signed before the screening passed.
        signTransfer: async ({ transferId }, read, screened = Promise.resolve(), signedAs) => {
          await screened;
          calls.push('sign');
          const signed = { userOperation: { signed: 'true' }, userOpHash: '0x01' };
          await orm().em.fork().nativeUpdate(TransferEntity, { transferId }, signed);
          if (tellSigned) signedAs?.({ ...read!, ...signed });
        },
        submitTransfer: async ({ record }, known) => {
          calls.push(`submit${record ? ':record' : ''}`);
          submittedRows.push(known && { status: known.status, userOpHash: known.userOpHash });
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
  const send = (transferId: string, attempt: number, database?: Orm) =>
    new MockActivityEnvironment({ attempt }).run(activities(database).sendTransfer, { transferId });
  beforeEach(() => {
    calls = [];
    submittedRows = [];
    tellSigned = true;
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

  it('submits the row as this attempt signed or read it (no second read), and reads it when another attempt signed it', async () => {
    const transferId = await transfer();
    await send(transferId, 1); // signed by this attempt
    await send(transferId, 2); // read signed
    tellSigned = false;
    await send(await transfer(), 1); // another attempt stored its signed form first
    expect(submittedRows).toEqual([
      { status: 'processing', userOpHash: '0x01' },
      { status: 'processing', userOpHash: '0x01' },
      undefined,
    ]);
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

  it('keeps retryable a failure before it could tell the transfer unsigned (an earlier attempt may have sent it)', async () => {
    // The row cannot be read (a database blip) on the last attempt of a transfer an earlier attempt signed and handed
    // over: final, the workflow would take it for a proven failure and record failed a transfer the chain may run.
    const unreadable = {
      em: {
        fork: () => {
          throw new Error('Connection terminated unexpectedly');
        },
      },
    } as unknown as Orm;
    await expect(send(await transfer(), PREPARE_ATTEMPTS + 5, unreadable)).rejects.toMatchObject({
      message: 'Connection terminated unexpectedly',
    });
    await expect(send(await transfer(), PREPARE_ATTEMPTS + 5, unreadable)).rejects.not.toBeInstanceOf(
      ApplicationFailure,
    );
    expect(calls).toEqual([]);
  });

  it('hands over only a transfer still to send: processing or submitted, never one failed or held meanwhile', async () => {
    const status = async (transferId: string) =>
      (await orm().em.fork().findOneOrFail(TransferEntity, { transferId })).status;
    const processing = await transfer();
    await handOver(orm().em.fork(), processing, '0x01');
    expect(await status(processing)).toBe('submitted');
    await handOver(orm().em.fork(), processing, '0x01'); // sent again by a later attempt: safe, its hash
    expect(await status(processing)).toBe('submitted');
    for (const held of ['failed', 'held_for_review'] as const) {
      // An attempt that outlived its heartbeat while a later one was refused and the workflow recorded it failed.
      const transferId = await transfer();
      await orm().em.fork().nativeUpdate(TransferEntity, { transferId }, { status: held });
      await expect(handOver(orm().em.fork(), transferId, '0x01')).rejects.toMatchObject({
        type: TransferFailure.TransferRefused,
        nonRetryable: true,
        message: `the transfer is ${held}: nothing is sent for it`,
      });
      expect(await status(transferId)).toBe(held);
    }
  });

  it('records a failure the chain did not prove only while nothing was handed over, and says when something was', async () => {
    const status = async (transferId: string) =>
      (await orm().em.fork().findOneOrFail(TransferEntity, { transferId })).status;
    const failure = (transferId: string, unsent?: boolean) =>
      finishTransferRecord(orm().em.fork(), {
        transferId,
        status: 'failed',
        txHash: null,
        fee: null,
        error: 'connect ECONNREFUSED',
        ...(unsent ? { unsent } : {}),
      });
    const unsent = await transfer();
    expect(await failure(unsent, true)).toBe(true);
    expect(await status(unsent)).toBe('failed');
    expect(await failure(unsent, true)).toBe(true); // the same call retried: recorded already
    // Handed over by an attempt the workflow no longer waited for, after the workflow read it unsent.
    const handedOver = await transfer();
    await handOver(orm().em.fork(), handedOver, '0x01');
    expect(await failure(handedOver, true)).toBe(false);
    expect(await status(handedOver)).toBe('submitted');
    // A failure the chain proves (a refusal by the EntryPoint) is recorded whatever was handed over.
    expect(await failure(handedOver)).toBe(true);
    expect(await status(handedOver)).toBe('failed');
  });
});
