import type { Orm } from '../../db/orm';
import { defineRoute, type RouteSpec } from '../http/route-table';
import { activeUser } from '../common/active-user';
import type { BankVerificationService } from './service';
import * as S from './schemas';

export interface BankRouteDeps {
  orm: Orm;
  verifications: BankVerificationService;
}

/** Connecting a bank account: 1 KRW verification, its confirmation, and the connected accounts. */
export function bankRoutes({ orm, verifications }: BankRouteDeps): RouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/api/v1/bank/send-won',
      operationId: 'sendWon',
      tags: ['Bank'],
      auth: 'bearer',
      summary:
        'Verify a bank account: 1 KRW is deposited with a 4-digit code in the deposit text, which the user confirms',
      description: 'The deposit runs as the workflow bank-verification-<verification_id>; the answer waits for it.',
      body: S.SendWonBody,
      rateLimits: [{ rule: 'bank-send-won', key: ({ user }) => user.userId }],
      idempotency: { required: false, scope: ({ user }) => `user:${user.userId}` },
      responses: {
        429: { description: 'Too many requests (Retry-After)' },
        200: { description: 'Deposit sent', schema: S.SendWonResponse },
        409: { description: 'Account already connected' },
        422: { description: 'Unknown account, or an account held by someone else' },
        503: { description: 'The bank is not answering' },
      },
      handler: async ({ body, user }, ctx) => {
        const found = await activeUser(orm, user.userId);
        const idempotencyKey = ctx.get('idempotency-key') || undefined;
        return {
          status: 200,
          body: await verifications.send(found, {
            bankCode: body.bank_code,
            accountNo: body.account_no,
            sessionId: body.session_id,
            idempotencyKey,
          }),
        };
      },
    }),

    defineRoute({
      method: 'post',
      path: '/api/v1/bank/send-won/confirm',
      operationId: 'confirmWon',
      tags: ['Bank'],
      auth: 'bearer',
      summary:
        'Confirm the code from the 1 KRW deposit; the account becomes a connected account (charged from once a consent covers it)',
      description:
        'Send the `verification_id` of POST /api/v1/bank/send-won and the 4 digits after 월렛 in the text of the 1 ' +
        'KRW deposit, before its `expires_at` (BANK_VERIFICATION_TTL_SECONDS, 10 minutes); the bank is asked ' +
        'again whether the verified person holds the account. The third wrong code ' +
        '(BANK_VERIFICATION_MAX_ATTEMPTS) locks the verification, and only a new deposit helps then; wrong codes ' +
        'also count per bank account, whoever asks (10 in 20 days, then 429). Charges from the account also need ' +
        'the consent of the person at the bank (POST /api/v1/bank/consent), given before or after.',
      body: S.ConfirmWonBody,
      rateLimits: [{ rule: 'bank-send-won-confirm', key: ({ user }) => user.userId }],
      idempotency: { required: false, scope: ({ user }) => `user:${user.userId}` },
      responses: {
        429: { description: 'Too many requests (Retry-After)' },
        200: { description: 'Verified and connected', schema: S.ConfirmWonResponse },
        404: { description: 'No such verification for this user' },
        409: { description: 'Already verified, or locked after too many wrong codes' },
        410: { description: 'The code expired; send again' },
        422: { description: 'Wrong code (the answer says how many attempts remain)' },
      },
      handler: async ({ body, user }) => {
        return { status: 200, body: await verifications.confirm(user.userId, body.verification_id, body.code) };
      },
    }),

    defineRoute({
      method: 'get',
      path: '/api/v1/bank/accounts',
      operationId: 'listBankAccounts',
      tags: ['Bank'],
      auth: 'bearer',
      summary: 'Connected bank accounts (charged from once a consent at the bank covers them)',
      description:
        'Accounts connected by the 1 KRW verification, oldest first, with masked numbers; `bank_account_id` ' +
        'names one as the `source` of a charge when two are at the same bank. Being listed does not make an ' +
        'account chargeable: the consent at the bank must cover it too, and GET /api/v1/bank/consent shows which ' +
        'ones it does.',
      responses: { 200: { description: 'Accounts', schema: S.BankAccountList } },
      handler: async ({ user }) => ({ status: 200, body: await verifications.accounts(user.userId) }),
    }),
  ];
}
