import { createHash, createHmac, randomInt, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { raw, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Orm } from '../../db/orm';
import type { SqlEntityManager } from '@mikro-orm/knex';
import { BankAccountEntity, BankVerificationEntity, ChargeEntity, LedgerAccountEntity, UserEntity, type BankAccount } from '../../db/entities';
import type { DataEncryption } from '../../platform/data-encryption';
import type { BankClient, AccountHolder } from '../../integrations/bank';
import { PROVIDER_REJECTED } from '../../integrations/provider-http';
import { accountNoAad } from '../../activities/charge';
import { sameName } from '../../activities/registration';
import { AmountError, FIAT_DECIMALS, formatDecimal, formatMoney, parseAmount } from '../../platform/money';
import { chargeWorkflow } from '../../workflows/charge';
import { chargeWorkflowId, withdrawalSettledSignal } from '../../workflows/messages';
import { defineRoute, type RouteSpec } from '../http/route-table';
import { HttpError, problems } from '../http/problems';
import { startOnce } from '../http/start-once';
import { idForRequest } from '../http/idempotency';
import * as S from './schemas';

export interface BankRouteDeps {
  orm: Orm; temporal: Client; encryption: DataEncryption; bank: BankClient; taskQueue: string;
  webhookSecret: string; verificationTtlSeconds: number; verificationMaxAttempts: number; chargeMaxAmountKrw: number;
}

const REMARK_PREFIX = '월렛';
const mask = (accountNo: string) => `${accountNo.slice(0, 3)}${'*'.repeat(Math.max(accountNo.length - 6, 0))}${accountNo.slice(-3)}`;
const hashOf = (...parts: string[]) => createHash('sha256').update(parts.join('\n')).digest('hex');
const accountView = (a: BankAccount) => ({
  bank_account_id: a.bankAccountId, bank_code: a.bankCode, bank_name: a.bankName, account_no: a.maskedAccountNo,
  currency: a.currency, connected_at: a.connectedAt.toISOString(),
});

export function bankRoutes(deps: BankRouteDeps): RouteSpec[] {
  const { orm, encryption, bank } = deps;
  const activeUser = async (userId: string) => {
    const user = await orm.em.fork().findOne(UserEntity, { id: userId });
    if (user?.status !== 'active') throw problems.invalidCredential('invalid-token', 'The access token does not belong to an active user');
    return user;
  };
  const holderOf = async (bankCode: string, accountNo: string): Promise<AccountHolder> => {
    try {
      return await bank.accountHolder(bankCode, accountNo);
    } catch (error) {
      if (error instanceof ApplicationFailure && error.type === PROVIDER_REJECTED) {
        throw problems.unprocessable('bank-account-not-found', 'The bank does not know this account number');
      }
      throw error;
    }
  };

  return [
    defineRoute({
      method: 'post', path: '/api/v1/bank/send-won', operationId: 'sendWon', tags: ['Bank'], auth: 'bearer',
      summary: "Verify a bank account: 1 KRW is deposited with a 4-digit code in the deposit text, which the user confirms",
      body: S.SendWonBody,
      rateLimits: [{ rule: 'bank-send-won', key: ({ user }) => user!.userId }],
      idempotency: { required: false, scope: ({ user }) => `user:${user!.userId}` },
      responses: {
        429: { description: 'Too many requests (Retry-After)' }, 
        200: { description: 'Deposit sent', schema: S.SendWonResponse },
        409: { description: 'Account already connected' },
        422: { description: 'Unknown account, or an account held by someone else' }, 503: { description: 'The bank is not answering' },
      },
      handler: async ({ body, user }) => {
        const found = await activeUser(user!.userId);
        const accountNo = body.account_no.replace(/-/g, '');
        const accountNoHash = hashOf(body.bank_code, accountNo);
        if (await orm.em.fork().count(BankAccountEntity, { userId: found.id, bankCode: body.bank_code, accountNoHash })) {
          throw problems.conflict('bank-account-already-connected', 'This account is already connected');
        }
        const holder = await holderOf(body.bank_code, accountNo);
        if (!sameName(holder.holder, encryption.openText(found.nameSealed, found.id))) {
          throw problems.unprocessable('account-holder-mismatch', 'The account is not held in your verified name');
        }
        const verificationId = `bv_${randomUUID()}`;
        const code = String(randomInt(0, 10_000)).padStart(4, '0');
        const expiresAt = new Date(Date.now() + deps.verificationTtlSeconds * 1000);
        const em = orm.em.fork();
        em.create(BankVerificationEntity, {
          verificationId, userId: found.id, bankCode: body.bank_code, accountNoSealed: encryption.sealText(accountNo, accountNoAad(found.id)),
          accountNoHash, codeHash: hashOf(verificationId, code), status: 'pending', sessionId: body.session_id ?? null, expiresAt,
        });
        await em.flush();
        await bank.deposit({ bankCode: body.bank_code, accountNo, amount: 1, remark: `${REMARK_PREFIX}${code}`, reference: verificationId });
        return { status: 200, body: { sent: true, remark: `${REMARK_PREFIX}****`, verification_id: verificationId, expires_at: expiresAt.toISOString() } };
      },
    }),

    defineRoute({
      method: 'post', path: '/api/v1/bank/send-won/confirm', operationId: 'confirmWon', tags: ['Bank'], auth: 'bearer',
      summary: 'Confirm the code from the 1 KRW deposit; the account becomes a connected account (a charge source)',
      body: S.ConfirmWonBody,
      rateLimits: [{ rule: 'bank-send-won-confirm', key: ({ user }) => user!.userId }],
      idempotency: { required: false, scope: ({ user }) => `user:${user!.userId}` },
      responses: {
        429: { description: 'Too many requests (Retry-After)' }, 
        200: { description: 'Verified and connected', schema: S.ConfirmWonResponse },
        404: { description: 'No such verification for this user' }, 409: { description: 'Already verified, or locked after too many wrong codes' },
        410: { description: 'The code expired; send again' }, 422: { description: 'Wrong code (the answer says how many attempts remain)' },
      },
      handler: async ({ body, user }) => {
        await activeUser(user!.userId);
        const em = orm.em.fork();
        const verification = await em.findOne(BankVerificationEntity, { verificationId: body.verification_id, userId: user!.userId });
        if (!verification) throw problems.notFound(`Verification ${body.verification_id}`);
        if (verification.status === 'verified') throw problems.conflict('already-verified', 'This account was already verified');
        if (verification.status === 'failed') throw problems.conflict('verification-locked', 'Too many wrong codes; start a new verification');
        if (verification.expiresAt.getTime() < Date.now()) throw problems.gone('verification-expired', 'The code expired; send 1 KRW again');
        // Count the attempt before comparing, atomically, so parallel guesses cannot exceed the limit.
        const counted = await em.nativeUpdate(BankVerificationEntity,
          { verificationId: verification.verificationId, status: 'pending', attempts: { $lt: deps.verificationMaxAttempts } },
          { attempts: raw('attempts + 1') });
        const fresh = await orm.em.fork().findOneOrFail(BankVerificationEntity, { verificationId: verification.verificationId });
        if (counted !== 1 || fresh.attempts > deps.verificationMaxAttempts) throw problems.conflict('verification-locked', 'Too many wrong codes; start a new verification');
        const expected = Buffer.from(fresh.codeHash, 'hex');
        if (!timingSafeEqual(expected, Buffer.from(hashOf(fresh.verificationId, body.code), 'hex'))) {
          const remaining = deps.verificationMaxAttempts - fresh.attempts;
          if (remaining <= 0) await orm.em.fork().nativeUpdate(BankVerificationEntity, { verificationId: fresh.verificationId }, { status: 'failed' });
          throw new HttpError(422, 'wrong-code', 'Wrong code', remaining > 0
            ? `The code does not match; ${remaining} attempt${remaining === 1 ? '' : 's'} left`
            : 'The code does not match; the verification is now locked');
        }
        const accountNo = encryption.openText(fresh.accountNoSealed, accountNoAad(fresh.userId));
        const holder = await holderOf(fresh.bankCode, accountNo);
        let account: BankAccount;
        try {
          account = await orm.em.fork().transactional(async (tx) => {
            const moved = await tx.nativeUpdate(BankVerificationEntity, { verificationId: fresh.verificationId, status: 'pending' }, { status: 'verified' });
            if (moved !== 1) throw problems.conflict('already-verified', 'This account was already verified');
            return tx.create(BankAccountEntity, {
              bankAccountId: `ba_${randomUUID()}`, userId: fresh.userId, bankCode: fresh.bankCode, bankName: holder.bankName,
              accountNoSealed: fresh.accountNoSealed, accountNoHash: fresh.accountNoHash, maskedAccountNo: mask(accountNo), currency: 'KRW',
            });
          });
        } catch (error) {
          if (error instanceof UniqueConstraintViolationException) throw problems.conflict('bank-account-already-connected', 'This account is already connected');
          throw error;
        }
        return { status: 200, body: { verified: true, bank_account: accountView(account) } };
      },
    }),

    defineRoute({
      method: 'get', path: '/api/v1/bank/accounts', operationId: 'listBankAccounts', tags: ['Bank'], auth: 'bearer',
      summary: 'Connected bank accounts (charge sources)',
      responses: { 200: { description: 'Accounts', schema: S.BankAccountList } },
      handler: async ({ user }) => {
        const accounts = await orm.em.fork().find(BankAccountEntity, { userId: user!.userId }, { orderBy: { connectedAt: 'asc' } });
        return { status: 200, body: { accounts: accounts.map(accountView) } };
      },
    }),

    defineRoute({
      method: 'post', path: '/api/v1/bank/webhooks/withdrawals', operationId: 'bankWithdrawalWebhook', tags: ['Bank'], auth: 'none',
      summary: 'Server to server: the bank reports a settled withdrawal (X-Bank-Signature: sha256=<HMAC of the body>)',
      body: S.WithdrawalWebhookBody,
      responses: {
        200: { description: 'Received', schema: S.WebhookAck }, 401: { description: 'Missing or wrong signature' },
        404: { description: 'No charge with this reference' },
      },
      handler: async ({ body }, ctx?: Context) => {
        const raw = (ctx!.request as unknown as { rawBody?: string }).rawBody ?? '';
        const expected = `sha256=${createHmac('sha256', deps.webhookSecret).update(raw).digest('hex')}`;
        const given = ctx!.get('x-bank-signature');
        if (given.length !== expected.length || !timingSafeEqual(Buffer.from(given), Buffer.from(expected))) {
          throw problems.invalidCredential('invalid-signature', 'The X-Bank-Signature header is missing or does not match the body');
        }
        const charge = await orm.em.fork().findOne(ChargeEntity, { chargeId: body.reference });
        if (!charge) throw problems.notFound(`Charge ${body.reference}`);
        try {
          await deps.temporal.workflow.getHandle(chargeWorkflowId(charge.chargeId)).signal(withdrawalSettledSignal, { status: body.status, reason: body.reason });
        } catch (error) {
          if (!(error instanceof WorkflowNotFoundError)) throw error; // the charge already finished (it polled): nothing to tell it
        }
        return { status: 200, body: { received: true } };
      },
    }),

    defineRoute({
      method: 'post', path: '/api/v1/charge/execute', operationId: 'executeCharge', tags: ['Charge'], auth: 'bearer',
      summary: "Charge the user's balance from a connected bank account (asynchronous: poll GET /api/v1/charge/{chargeId})",
      body: S.ChargeBody,
      idempotency: { required: false, scope: ({ user }) => `user:${user!.userId}` },
      responses: {
        202: { description: 'Charge started', schema: S.ChargeAccepted },
        422: { description: 'Source not connected, unsupported currency, invalid amount or over the limit' },
      },
      handler: async ({ body, user }, ctx?: Context) => {
        await activeUser(user!.userId);
        const decimals = FIAT_DECIMALS[body.currency];
        if (decimals === undefined) throw problems.unprocessable('unsupported-currency', `Charges in ${body.currency} are not supported; supported: ${Object.keys(FIAT_DECIMALS).join(', ')}`);
        let amount: bigint;
        try { amount = parseAmount(body.amount, decimals, body.currency); } catch (error) {
          if (error instanceof AmountError) throw problems.unprocessable(`invalid-amount`, error.message);
          throw error;
        }
        if (amount > BigInt(deps.chargeMaxAmountKrw)) {
          throw problems.unprocessable('limit-exceeded', `A single charge is limited to ${formatMoney(BigInt(deps.chargeMaxAmountKrw), decimals, body.currency)}`);
        }
        const em = orm.em.fork();
        const accounts = await em.find(BankAccountEntity, { userId: user!.userId });
        const source = accounts.find((a) => a.bankName === body.source || a.bankCode === body.source);
        if (!source) throw problems.unprocessable('source-not-connected', `${body.source} is not one of your connected accounts; verify it with /api/v1/bank/send-won first`);
        if (source.currency !== body.currency) throw problems.unprocessable('currency-mismatch', `${source.bankName} holds ${source.currency}, not ${body.currency}`);

        const chargeId = idForRequest('chg', user!.userId, ctx?.get('idempotency-key') || undefined);
        // Recorded once per charge id (a retry with the same Idempotency-Key finds it): one INSERT … ON CONFLICT DO NOTHING.
        const now = new Date();
        await (em as SqlEntityManager).createQueryBuilder(ChargeEntity).insert({
          chargeId, userId: user!.userId, bankAccountId: source.bankAccountId, bankCode: source.bankCode, amount: Number(amount),
          currency: body.currency, status: 'processing', createdAt: now, updatedAt: now,
        }).onConflict('chargeId').ignore().execute();
        await startOnce(() => deps.temporal.workflow.start(chargeWorkflow, {
          workflowId: chargeWorkflowId(chargeId), taskQueue: deps.taskQueue, workflowIdReusePolicy: 'REJECT_DUPLICATE',
          args: [{ chargeId, userId: user!.userId }],
        }));
        return { status: 202, body: { charge_id: chargeId, status: 'processing' }, headers: { location: `/api/v1/charge/${chargeId}` } };
      },
    }),

    defineRoute({
      method: 'get', path: '/api/v1/charge/:chargeId', operationId: 'getCharge', tags: ['Charge'], auth: 'bearer',
      summary: 'Status of a charge',
      params: S.ChargeParams,
      responses: { 200: { description: 'Charge', schema: S.ChargeView }, 404: { description: 'No such charge for this user' } },
      handler: async ({ params, user }) => {
        const em = orm.em.fork();
        const charge = await em.findOne(ChargeEntity, { chargeId: params.chargeId, userId: user!.userId });
        if (!charge) throw problems.notFound(`Charge ${params.chargeId}`);
        const account = await em.findOneOrFail(BankAccountEntity, { bankAccountId: charge.bankAccountId });
        return {
          status: 200,
          body: {
            charge_id: charge.chargeId, status: charge.status, amount: formatMoney(BigInt(charge.amount), FIAT_DECIMALS[charge.currency] ?? 0, charge.currency),
            currency: charge.currency, source: account.bankName, failure_reason: charge.failureReason ?? null,
            created_at: charge.createdAt.toISOString(), completed_at: charge.completedAt?.toISOString() ?? null,
          },
        };
      },
    }),

    defineRoute({
      method: 'get', path: '/api/v1/balance', operationId: 'getBalance', tags: ['Charge'], auth: 'bearer',
      summary: "The caller's balances in the ledger (what charges credited)",
      responses: { 200: { description: 'Balances', schema: S.BalanceView } },
      handler: async ({ user }) => {
        const accounts = await orm.em.fork().find(LedgerAccountEntity, { userId: user!.userId, kind: 'user_balance' }, { orderBy: { currency: 'asc' } });
        const krw = accounts.some((a) => a.currency === 'KRW') ? [] : [{ currency: 'KRW', balance: 0 }];
        return {
          status: 200,
          body: {
            balances: [...accounts, ...krw].map((a) => {
              const decimals = FIAT_DECIMALS[a.currency] ?? 0;
              return { currency: a.currency, amount: formatDecimal(BigInt(a.balance), decimals).replace(/,/g, ''), display: formatMoney(BigInt(a.balance), decimals, a.currency) };
            }),
          },
        };
      },
    }),
  ];
}
