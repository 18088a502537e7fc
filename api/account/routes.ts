import type { Static } from '@sinclair/typebox';
import { createHash } from 'node:crypto';
import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import type { Orm } from '../../db/orm';
import type { DataEncryption } from '../../platform/data-encryption';
import { basicInfoWorkflow } from '../../workflows/kyc';
import {
  accountClosureWorkflowId,
  basicInfoWorkflowId,
  closurePayoutQuery,
  kycRenewalWorkflowId,
  type ClosureBlocker,
} from '../../workflows/messages';
import { kycRenewalWorkflow } from '../../workflows/kyc';
import { kycRenewalUploadOwner, storeIdCardImage } from '../common/uploads';
import { ID_CARD_IMAGE_TYPES } from '../registration/routes';
import { accountClosureWorkflow } from '../../workflows/account';
import { HttpError, problems } from '../http/problems';
import type { Passkeys } from '../passkeys/service';
import { defineRoute, type RouteSpec, LOCATION_HEADER } from '../http/route-table';
import { idForRequest } from '../http/idempotency';
import type { PayoutService } from '../payout/service';
import { sha256Base64Url } from '../http/step-up';
import { activeUser } from '../common/active-user';
import * as S from './schemas';
import { emailView, type EmailVerificationService } from './email-service';
import type { SessionCache } from '../common/session-cache';

export interface AccountRouteDeps {
  orm: Orm;
  temporal: Client;
  taskQueue: string;
  encryption: DataEncryption;
  passkeys: Passkeys;
  emails: EmailVerificationService;
  uploadMaxBytes: number;
  payouts: PayoutService;
  /** The api process's session cache: a closure answers once every process has been told. */
  sessions?: SessionCache;
}

/** 409 account-not-closable: a closure is already paying the balance back (and, if said, this one's payout runs on its own). */
const closureUnderWay = (running: string | null, ours?: string) =>
  notClosable([
    {
      reason: 'closure-in-progress',
      detail: `a closure is already under way${running ? `, paying the balance back as ${running}` : ''}: follow it${ours ? `; the balance that came in since is paid out as ${ours}` : ''}`,
    },
  ]);

/** The payout a closure under way pays the balance back with: undefined when none runs, null when it has no balance. */
async function runningClosurePayout(closure: WorkflowHandle<typeof accountClosureWorkflow>) {
  try {
    if ((await closure.describe()).status.name !== 'RUNNING') return undefined;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  }
  return closure.query(closurePayoutQuery);
}

/** 409 account-not-closable with what stops the closure. */
const notClosable = (blockers: ClosureBlocker[]) =>
  new HttpError(
    409,
    'account-not-closable',
    'Conflict',
    blockers.map((b) => b.detail).join('; '),
    undefined,
    {},
    false,
    {
      blockers,
    },
  );

/**
 * The caller's profile, their email address (verified by a mailed code), and basic KYC information (recorded with its
 * credential by the worker, which holds the issuer's key).
 */
export function accountRoutes({
  orm,
  temporal,
  taskQueue,
  encryption,
  passkeys,
  emails,
  uploadMaxBytes,
  payouts,
  sessions,
}: AccountRouteDeps): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/account/profile',
      operationId: 'getProfile',
      tags: ['Account'],
      auth: 'bearer',
      summary: "The caller's profile",
      description:
        '`email` is a string as the interface types it: the verified address, or an empty string until one is confirmed (`emailVerified` says which).',
      responses: { 200: { description: 'Profile', schema: S.ProfileResponse } },
      handler: async ({ user }) => {
        const found = await activeUser(orm, user.userId);
        return {
          status: 200,
          body: {
            userId: found.id,
            name: encryption.openText(found.nameSealed, found.id),
            maskedPhone: found.maskedPhone,
            ...emailView(encryption, found),
            status: found.status,
            walletType: found.walletType,
            registeredAt: found.registeredAt.toISOString(),
            // Read with the session (api/common/active-user.ts), kept current by the passkeys table's trigger.
            twoFactorMethods: user.session
              ? user.session.hasPasskey
                ? ['passkey']
                : []
              : await passkeys.methodsOf(found.id),
          },
        };
      },
    }),

    defineRoute({
      method: 'post',
      path: '/v1/account/email',
      operationId: 'requestEmailVerification',
      stepUp: {
        action: 'email_change',
        does: 'change the email address',
        binds: ({ body }) => ({ email: body.email }),
        anyOf: [['pin'], ['passkey'], ['identity', 'id_card']],
        hold: true,
        notice: null,
      },
      tags: ['Account'],
      auth: 'bearer',
      summary: 'Verify an email address: a 6-digit code is mailed to it, which the user sends back',
      description:
        'The address is where every security notice goes, so an access token alone cannot set it: send `pin` bound to ' +
        '`{"action":"email_change","email":"<email as sent>"}`, a `passkeyAssertion`, or an `identityCheckId` for that request proved with the ID card. ' +
        'While an earlier change can still be undone (EMAIL_CHANGE_UNDO_SECONDS), no other is taken (409 email-change-pending). ' +
        'The mail is sent by the workflow email-verification-<verificationId>; the answer waits for it. The profile shows the address once confirmed.',
      body: S.EmailBody,
      rateLimits: [{ rule: 'email-send', key: ({ user }) => user.userId }],
      idempotency: { required: false, scope: ({ user }) => `user:${user.userId}` },
      responses: {
        200: { description: 'Code mailed', schema: S.EmailVerificationStarted },
        429: { description: 'Too many requests (Retry-After)' },
        503: { description: 'The mail provider is not answering' },
      },
      handler: async ({ body, user }) => ({
        status: 200,
        body: await emails.request(await activeUser(orm, user.userId), body.email),
      }),
    }),

    defineRoute({
      method: 'post',
      path: '/v1/account/email/confirm',
      operationId: 'confirmEmail',
      stepUp: {
        action: 'email_confirm',
        does: 'change the email address',
        anyOf: [],
        hold: true,
        notice: { event: 'email.changed', mailed: true },
      },
      tags: ['Account'],
      auth: 'bearer',
      summary: "Confirm the code from the mail; the address becomes the profile's email",
      description:
        'Replacing a verified address writes `email.changed` and mails the replaced address at once, with a code that undoes the change for EMAIL_CHANGE_UNDO_SECONDS (POST /v1/account/email/undo); until then every security notice goes to both addresses. The first address writes `email.verified`.',
      body: S.EmailConfirmBody,
      rateLimits: [{ rule: 'email-confirm', key: ({ user }) => user.userId }],
      idempotency: { required: false, scope: ({ user }) => `user:${user.userId}` },
      responses: {
        200: { description: 'Verified', schema: S.EmailConfirmed },
        404: { description: 'No such verification for this user' },
        409: { description: 'Already verified, or locked after too many wrong codes' },
        410: { description: 'The code expired; ask for a new one' },
        422: { description: 'Wrong code (the answer says how many attempts remain)' },
        429: { description: 'Too many requests (Retry-After)' },
      },
      handler: async ({ body, user }) => ({
        status: 200,
        body: await emails.confirm(user.userId, body.verificationId, body.code),
      }),
    }),

    defineRoute({
      method: 'post',
      path: '/v1/account/email/undo',
      operationId: 'undoEmailChange',
      tags: ['Account'],
      auth: 'none',
      summary: 'Undo an email change from the address it replaced, with the code mailed there',
      description:
        "No access token: the person may have lost theirs to whoever changed the address. The replaced address is the account's again, " +
        'pending verifications end, and `email.change_undone` is written and mailed. Within EMAIL_CHANGE_UNDO_SECONDS of the change.',
      body: S.EmailUndoBody,
      responses: {
        200: { description: 'Undone', schema: S.EmailChangeUndone },
        401: { description: 'Unknown change or wrong code (invalid-undo-code)' },
        409: { description: 'Undone already, or the address was changed again since' },
        410: { description: 'Too late to undo (email-change-final)' },
      },
      handler: async ({ body }) => ({ status: 200, body: await emails.undo(body.changeId, body.code) }),
    }),

    defineRoute({
      method: 'post',
      path: '/api/v1/kyc/basic-info',
      operationId: 'submitKycBasicInfo',
      tags: ['KYC'],
      auth: 'bearer',
      summary: 'Submit basic personal information (legal name, English name, nationality)',
      description:
        'Recorded with a BasicInfoCredential by the workflow basic-info-<userId>-<submission>; the same details again keep their credential.',
      body: S.BasicInfoBody,
      idempotency: { required: false, scope: ({ user }) => `user:${user.userId}` },
      responses: {
        200: { description: 'Stored', schema: S.BasicInfoResponse },
        422: { description: 'full_name is not the name verified with the identity provider (name-mismatch)' },
      },
      handler: async ({ user, body }) => {
        const { id: userId } = await activeUser(orm, user.userId);
        const submission = createHash('sha256').update(JSON.stringify(body)).digest('hex').slice(0, 32);
        const { vcId } = await temporal.workflow.execute(basicInfoWorkflow, {
          workflowId: basicInfoWorkflowId(userId, submission),
          taskQueue,
          workflowIdConflictPolicy: 'USE_EXISTING',
          workflowIdReusePolicy: 'ALLOW_DUPLICATE',
          args: [
            {
              userId,
              kycSessionId: body.kyc_session_id,
              fullName: body.full_name,
              engSurname: body.eng_surname,
              engName: body.eng_name,
              nationality: body.nationality,
            },
          ],
        });
        return { status: 200, body: { step: 'basic_info', completed: true, vcId } };
      },
    }),

    defineRoute({
      method: 'post',
      path: '/v1/account/kyc/renew',
      operationId: 'renewKyc',
      // A renewal records the card on file of an account registered before cards were kept (what a sign-in by ID card
      // is compared with): not on the access token alone.
      stepUp: {
        action: 'kyc_renew',
        does: 'renew KYC',
        // The card itself, so an approval seen in transit puts no other card on file.
        binds: ({ body, file }) => ({
          id_card_image_sha256: sha256Base64Url(file?.buffer ?? Buffer.alloc(0)),
          id_card_type: (body as Static<typeof S.KycRenewalFields>).idCardType,
        }),
        anyOf: [['pin'], ['identity']],
        hold: true,
        notice: null,
      },
      tags: ['KYC'],
      auth: 'bearer',
      summary: 'Do KYC again with a new ID-card image: a match issues a new KycCredential and revokes the earlier ones',
      description:
        'For periodic customer due diligence or a renewed ID card. The image (multipart, field idCardImage) is read by the OCR provider in the workflow kyc-renewal-<userId>-<request> and must show the name and birth date verified at registration; the answer waits for it. Not verified: nothing changes. ' +
        'With the form, `pin` bound to `{"action":"kyc_renew","id_card_image_sha256":"<base64url SHA-256 of the image file\'s bytes>","id_card_type":"<idCardType as sent>"}`, or `identityCheckId` for that request: an account registered before card numbers were kept gets its card on file from a renewal, which a sign-in by ID card is then compared with.',
      multipart: {
        fields: S.KycRenewalFields,
        file: { field: 'idCardImage', maxBytes: uploadMaxBytes, contentTypes: ID_CARD_IMAGE_TYPES },
        documentAs: S.KycRenewalForm,
        example: { idCardImage: '(the photo of the ID card: a JPEG or PNG file)', idCardType: 'resident_id' },
      },
      rateLimits: [{ rule: 'kyc-renewal', key: ({ user }) => user.userId }],
      idempotency: { required: true, scope: ({ user }) => `user:${user.userId}` },
      responses: {
        200: { description: 'Read and compared', schema: S.KycRenewed },
        413: { description: 'Image too large' },
        415: { description: 'Not a JPEG or PNG image' },
      },
      handler: async ({ user, body, file }, ctx) => {
        const { id: userId } = await activeUser(orm, user.userId);
        if (!file)
          throw problems.validation([{ in: 'body', pointer: '/idCardImage', detail: 'the ID-card image is required' }]);
        const uploadRef = await storeIdCardImage(orm, encryption, kycRenewalUploadOwner(userId), file);
        const request = createHash('sha256').update(ctx.get('idempotency-key')).digest('hex').slice(0, 32);
        const workflowId = kycRenewalWorkflowId(userId, request);
        // A retry whose first answer was lost finds the renewal done (or under way) for its Idempotency-Key.
        const outcome = await temporal.workflow
          .execute(kycRenewalWorkflow, {
            workflowId,
            taskQueue,
            workflowIdConflictPolicy: 'USE_EXISTING',
            workflowIdReusePolicy: 'REJECT_DUPLICATE',
            args: [{ userId, uploadRef, idCardType: (body as Static<typeof S.KycRenewalFields>).idCardType }],
          })
          .catch((error: unknown) => {
            if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
            return temporal.workflow.getHandle<typeof kycRenewalWorkflow>(workflowId).result();
          });
        return { status: 200, body: outcome };
      },
    }),

    defineRoute({
      method: 'post',
      path: '/v1/account/close',
      operationId: 'closeAccount',
      stepUp: {
        action: 'account_close',
        does: 'close the account',
        // The account the balance is paid back to, when one is named: an approval seen in transit pays it nowhere else.
        binds: ({ body }): Record<string, string> =>
          body.bank_account_id ? { bank_account_id: body.bank_account_id } : {},
        anyOf: [['pin'], ['passkey']],
        hold: true,
        notice: { event: 'account.closed', mailed: false },
      },
      tags: ['Account'],
      auth: 'bearer',
      summary: 'Close the account: every token stops working and every credential is revoked',
      description:
        'The access token alone is not enough: send `pin` (bound to `{"action":"account_close"}`, or with a balance ' +
        '`{"action":"account_close","bank_account_id":"<bank_account_id>"}`) or `passkeyAssertion` (from POST ' +
        '/v1/auth/passkeys/approvals/options). With no won balance the account closes now (200). With one, name the ' +
        'verified account of yours it is paid back to (`bank_account_id`, GET /api/v1/bank/accounts; the bank is ' +
        'asked again whether it is held in your name): the whole balance is paid out as `payoutId` and the answer ' +
        'is 202 `closing` with its Location; the account closes once the bank deposited it (`account.closed`, and ' +
        'the token then answers 401). A payout the bank refuses gives the balance back and the account stays open ' +
        '(`payout.failed`); one in doubt keeps it open until the bank says. Refused (409 account-not-closable, ' +
        'with `blockers`) while anything else is moving for you: a charge, payout or transfer not finished, coins ' +
        'or tokens on the Solana wallet the service keeps, or a balance with no account named. Run by the workflow ' +
        'account-closure-<userId>. Records stay, as the law requires; the same person cannot register again.',
      body: S.CloseAccountBody,
      rateLimits: [{ rule: 'pin-attempt', key: ({ user }) => user.userId }],
      idempotency: { required: false, scope: ({ user }) => `user:${user.userId}` },
      responses: {
        200: { description: 'Closed', schema: S.AccountClosed },
        202: {
          description: 'The balance is being paid back; the account closes once it is (follow the payout)',
          schema: S.AccountClosing,
          headers: LOCATION_HEADER,
        },
        404: { description: 'Unknown approval challenge' },
        409: {
          description:
            'account-not-closable: `blockers` lists what to finish first ({reason, detail}); or no PIN set, or the approval already used',
        },
        410: { description: 'Approval challenge expired' },
        422: {
          description:
            'No approval (step-up-required), a wrong PIN, or an approval that does not verify or names another request',
        },
        423: {
          description:
            'PIN locked after too many wrong PINs: for PIN_LOCK_SECONDS (pin-locked, Retry-After), or until a reset (pin-reset-required)',
        },
        429: { description: 'Too many requests (Retry-After)' },
      },
      handler: async ({ user, body }, ctx) => {
        const key = ctx.get('idempotency-key') || undefined;
        const payoutId = idForRequest('po', user.userId, key && `account-close:${key}`);
        const closing = (amount: bigint) => ({
          status: 202,
          body: { status: 'closing' as const, payoutId, amount: `${amount.toLocaleString('en-US')} KRW` },
          headers: { location: `/api/v1/payouts/${payoutId}` },
        });
        const closure = temporal.workflow.getHandle<typeof accountClosureWorkflow>(
          accountClosureWorkflowId(user.userId),
        );
        // A closure already paying the balance back: this request is it again (its Idempotency-Key), or waits for it.
        const running = await runningClosurePayout(closure);
        if (running) {
          if (running === payoutId) return closing((await payouts.payout(running)).amount);
          throw closureUnderWay(running);
        }
        const balance = await payouts.balance(user.userId);
        if (balance > 0n) {
          const blockers = await payouts.closureBlockers(user.userId);
          if (!body.bank_account_id) {
            const accounts = await payouts.verifiedAccounts(user.userId);
            blockers.unshift({
              reason: 'won-balance',
              detail: accounts.length
                ? `${balance} KRW held for you: name the verified account to pay it back to (bank_account_id: ${accounts.join(', ')})`
                : `${balance} KRW held for you: connect a bank account of yours first (POST /api/v1/bank/send-won), then name it as bank_account_id`,
            });
          }
          if (blockers.length) throw notClosable(blockers);
          const found = await activeUser(orm, user.userId);
          const { payout } = await payouts.start(
            found,
            payoutId,
            { bankAccountId: body.bank_account_id!, amount: balance, purpose: 'closure' },
            { startWorkflow: false },
          );
          try {
            await temporal.workflow.start(accountClosureWorkflow, {
              workflowId: accountClosureWorkflowId(user.userId),
              taskQueue,
              workflowIdConflictPolicy: 'FAIL',
              workflowIdReusePolicy: 'ALLOW_DUPLICATE',
              args: [{ userId: user.userId, payoutId }],
            });
          } catch (error) {
            if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
            // Another request's closure started in between (a charge credited meanwhile gave this one a balance): this
            // payout is not its, so it runs on its own (the money is paid out, never left in transit), and the closure
            // under way is the one to follow.
            const other = await closure.query(closurePayoutQuery);
            if (other !== payoutId) {
              await payouts.startWorkflow(payout);
              throw closureUnderWay(other, payoutId);
            }
          }
          return closing(payout.amount);
        }
        const told = sessions?.whenTold(user.userId, 5_000);
        const outcome = await temporal.workflow.execute(accountClosureWorkflow, {
          workflowId: accountClosureWorkflowId(user.userId),
          taskQueue,
          workflowIdConflictPolicy: 'USE_EXISTING',
          workflowIdReusePolicy: 'ALLOW_DUPLICATE',
          args: [{ userId: user.userId }],
        });
        if (!outcome.closed) throw notClosable(outcome.blockers);
        await told?.();
        return {
          status: 200,
          body: { status: 'closed', closedAt: outcome.closedAt, revokedCredentials: outcome.revokedCredentials },
        };
      },
    }),
  ];
}
