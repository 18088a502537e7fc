import { createHash, randomInt, randomUUID } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Orm } from '../../db/orm';
import {
  BankAccountEntity,
  BankVerificationEntity,
  LEGACY_ACCOUNT_NO_HASH,
  RegistrationEntity,
  openPassResult,
  bankAccountNoAad,
  bankAccountNoFingerprint,
  type BankAccount,
  type BankVerification,
  type User,
  UserEntity,
} from '../../db/entities';
import type { DataEncryption } from '../../platform/data-encryption';
import { sameName } from '../../platform/names';
import type { BankRail } from '../../integrations/bank/rail';
import { linkConnectedAccount } from './consent-service';
import { bankVerificationWorkflow } from '../../workflows/bank-verification';
import { bankVerificationWorkflowId } from '../../workflows/messages';
import { problems } from '../http/problems';
import { idForRequest } from '../http/idempotency';
import { safeEqual } from '../auth/tokens';
import { countCodeAttempt, wrongCode } from '../common/code-verification';
import { appendEvent } from '../../db/events';
import type { RateLimits } from '../http/rate-limits';
import { clock } from '../../platform/clock';

export interface BankServiceDeps {
  orm: Orm;
  temporal: Client;
  encryption: DataEncryption;
  bank: BankRail;
  taskQueue: string;
  rateLimits: RateLimits;
  verificationTtlSeconds: number;
  verificationMaxAttempts: number;
}

const REMARK_PREFIX = '월렛';
const mask = (accountNo: string) =>
  `${accountNo.slice(0, 3)}${'*'.repeat(Math.max(accountNo.length - 6, 0))}${accountNo.slice(-3)}`;
/** How the first versions hashed account numbers and codes (bare SHA-256); only compared against, never written. */
const legacyHashOf = (...parts: string[]) => createHash('sha256').update(parts.join('\n')).digest('hex');

export const bankAccountView = (a: BankAccount) => ({
  bank_account_id: a.bankAccountId,
  bank_code: a.bankCode,
  bank_name: a.bankName,
  account_no: a.maskedAccountNo,
  currency: a.currency,
  connected_at: a.connectedAt.toISOString(),
});

/**
 * Bank account verification by a 1 KRW deposit whose text carries a 4-digit code: the API checks the holder (a read),
 * records the verification and runs the deposit as the workflow bank-verification-<id> (the worker moves the money).
 */
export class BankVerificationService {
  constructor(private readonly deps: BankServiceDeps) {}

  async send(user: User, input: { bankCode: string; accountNo: string; sessionId?: string; idempotencyKey?: string }) {
    const { orm, encryption } = this.deps;
    const accountNo = input.accountNo.replace(/-/g, '');
    const accountNoHash = bankAccountNoFingerprint(encryption, input.bankCode, accountNo);
    const known = { $in: [accountNoHash, legacyHashOf(input.bankCode, accountNo)] };
    if (
      await orm.em.fork().count(BankAccountEntity, { userId: user.id, bankCode: input.bankCode, accountNoHash: known })
    ) {
      throw problems.conflict('bank-account-already-connected', 'This account is already connected');
    }
    await this.holderOf(user, input.bankCode, accountNo);
    // Names are not unique: the holder check lets anyone of the same name try. Guesses at one account are bounded
    // across every user: a few sends a day, and no send at all once too many wrong codes were tried at it.
    await this.deps.rateLimits.assertUnder('bank-account-wrong-code', accountNoHash);
    await this.deps.rateLimits.consume('bank-account-send-won', accountNoHash);
    // With an Idempotency-Key, a retry whose first attempt sent the deposit but lost its answer (a process or the
    // database going away) finds the same verification, code and workflow: 1 KRW goes once (found by the cluster drill).
    const verificationId = idForRequest('bv', user.id, input.idempotencyKey);
    const code = input.idempotencyKey
      ? String(parseInt(encryption.derivedId(verificationId, 'bank-verification-code', 8), 16) % 10_000).padStart(
          4,
          '0',
        )
      : String(randomInt(0, 10_000)).padStart(4, '0');
    let expiresAt = new Date(clock.now() + this.deps.verificationTtlSeconds * 1000);
    try {
      await orm.em.fork().insert(BankVerificationEntity, {
        verificationId,
        userId: user.id,
        bankCode: input.bankCode,
        accountNoSealed: encryption.sealText(accountNo, bankAccountNoAad(user.id)),
        accountNoHash,
        codeHash: this.codeHashOf(verificationId, code),
        status: 'pending',
        sessionId: input.sessionId ?? null,
        expiresAt,
        attempts: 0,
        createdAt: clock.date(),
        updatedAt: clock.date(),
      });
    } catch (error) {
      if (!(error instanceof UniqueConstraintViolationException)) throw error;
      const first = await orm.em.fork().findOneOrFail(BankVerificationEntity, { verificationId });
      if (first.userId !== user.id || first.accountNoHash !== accountNoHash)
        throw problems.unprocessable(
          'idempotency-key-reused',
          'This Idempotency-Key was already used with a different request',
        );
      expiresAt = first.expiresAt;
    }
    // The code travels only in the workflow's (encrypted) input; the database keeps its hash. A run that finished
    // already is not started again: its outcome is awaited.
    const workflowId = bankVerificationWorkflowId(verificationId);
    try {
      await this.deps.temporal.workflow.execute(bankVerificationWorkflow, {
        workflowId,
        taskQueue: this.deps.taskQueue,
        args: [{ verificationId, remark: `${REMARK_PREFIX}${code}` }],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        workflowIdConflictPolicy: 'USE_EXISTING',
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      await this.deps.temporal.workflow.getHandle(workflowId).result();
    }
    return {
      sent: true,
      remark: `${REMARK_PREFIX}****`,
      verification_id: verificationId,
      expires_at: expiresAt.toISOString(),
    };
  }

  async confirm(userId: string, verificationId: string, code: string) {
    const pending = await this.deps.orm.em
      .fork()
      .findOne(BankVerificationEntity, { verificationId, userId }, { fields: ['accountNoHash'] });
    if (!pending) throw problems.notFound(`Verification ${verificationId}`);
    // A guess takes its unit of the account's wrong-code budget before its code is compared, so guesses at once cannot
    // all pass a reading made before any of them counted; one that compares nothing, or is right, gives it back.
    const { rateLimits } = this.deps;
    await rateLimits.reserve('bank-account-wrong-code', pending.accountNoHash);
    const verification = await countCodeAttempt(
      this.deps.orm,
      BankVerificationEntity,
      verificationId,
      userId,
      this.deps.verificationMaxAttempts,
      'send 1 KRW again',
    ).catch(async (error: unknown) => {
      await rateLimits.giveBack('bank-account-wrong-code', pending.accountNoHash);
      throw error;
    });
    const expected = LEGACY_ACCOUNT_NO_HASH.test(verification.codeHash)
      ? legacyHashOf(verification.verificationId, code)
      : this.codeHashOf(verification.verificationId, code);
    if (!safeEqual(verification.codeHash, expected)) {
      const remaining = this.deps.verificationMaxAttempts - verification.attempts;
      if (remaining <= 0) {
        await this.deps.orm.em.fork().transactional(async (tx) => {
          if (
            (await tx.nativeUpdate(
              BankVerificationEntity,
              { verificationId, status: 'pending' },
              { status: 'failed' },
            )) !== 1
          )
            return;
          await appendEvent(tx, {
            type: 'bank_verification.locked',
            resourceId: verificationId,
            userId,
            data: { verificationId },
          });
        });
      }
      throw wrongCode(remaining);
    }
    await rateLimits.giveBack('bank-account-wrong-code', verification.accountNoHash);
    return { verified: true, bank_account: bankAccountView(await this.connect(verification)) };
  }

  /** A keyed hash: a copy of the table cannot be tried against the 10 000 possible codes. */
  private codeHashOf(verificationId: string, code: string): string {
    return this.deps.encryption.fingerprint(`${verificationId}\n${code}`, 'bank-verification-code');
  }

  async accounts(userId: string) {
    const accounts = await this.deps.orm.em
      .fork()
      .find(BankAccountEntity, { userId }, { orderBy: { connectedAt: 'asc' } });
    return { accounts: accounts.map(bankAccountView) };
  }

  private async connect(verification: BankVerification): Promise<BankAccount> {
    const accountNo = this.deps.encryption.openText(
      verification.accountNoSealed,
      bankAccountNoAad(verification.userId),
    );
    const user = await this.deps.orm.em.fork().findOneOrFail(UserEntity, { id: verification.userId });
    const holder = await this.holderOf(user, verification.bankCode, accountNo);
    let connected: BankAccount;
    try {
      connected = await this.deps.orm.em.fork().transactional(async (tx) => {
        const moved = await tx.nativeUpdate(
          BankVerificationEntity,
          { verificationId: verification.verificationId, status: 'pending' },
          { status: 'verified' },
        );
        if (moved !== 1) throw problems.conflict('already-verified', 'This account was already verified');
        const account = tx.create(BankAccountEntity, {
          bankAccountId: `ba_${randomUUID()}`,
          userId: verification.userId,
          bankCode: verification.bankCode,
          bankName: holder.bankName || verification.bankCode,
          accountNoSealed: verification.accountNoSealed,
          accountNoHash: bankAccountNoFingerprint(this.deps.encryption, verification.bankCode, accountNo),
          maskedAccountNo: mask(accountNo),
          currency: 'KRW',
          railAccountRef: null,
          consentId: null,
        });
        await appendEvent(tx, {
          type: 'bank_verification.verified',
          resourceId: verification.verificationId,
          userId: verification.userId,
          data: { verificationId: verification.verificationId, bankAccountId: account.bankAccountId },
        });
        return account;
      });
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException)
        throw problems.conflict('bank-account-already-connected', 'This account is already connected');
      throw error;
    }
    // Consented at the bank already (the consent came first): a charge source at once.
    await linkConnectedAccount(this.deps.orm, connected.userId, this.deps.encryption);
    return connected;
  }

  /**
   * The real-name inquiry (a read): the bank checks the account's holder against the person's birth date, and the
   * holder's name must be the verified one. An account the bank does not know is the caller's mistake, not an outage.
   */
  async holderOf(user: User, bankCode: string, accountNo: string): Promise<{ bankName: string }> {
    const registration = await this.deps.orm.em.fork().findOneOrFail(RegistrationEntity, { regId: user.regId });
    const { birthDate } = openPassResult(this.deps.encryption, user.regId, registration.passResultSealed ?? '');
    const answer = await this.deps.bank.accountHolder({
      reference: `real-name:${randomUUID()}`,
      bankCode,
      accountNo,
      birthDate: birthDate ?? '',
    });
    if (!answer.found) {
      if (answer.reason === 'no_such_account')
        throw problems.unprocessable('bank-account-not-found', 'The bank does not know this account number');
      if (answer.reason === 'holder_mismatch')
        throw problems.unprocessable('account-holder-mismatch', 'The account is not held in your verified name');
      throw problems.unprocessable(
        'bank-account-refused',
        `The bank refuses inquiries about this account (${answer.code}); try another account`,
      );
    }
    if (!sameName(answer.holderName, this.deps.encryption.openText(user.nameSealed, user.id)))
      throw problems.unprocessable('account-holder-mismatch', 'The account is not held in your verified name');
    return { bankName: answer.bankName };
  }
}
