import {
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  type Client,
} from '@temporalio/client';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { Orm } from '../../db/orm';
import { PasskeyEntity, SignInEntity, UserEntity, type SignIn } from '../../db/entities';
import type { DataEncryption } from '../../platform/data-encryption';
import type { PassTokens } from '../../integrations/identity';
import { signInWorkflow } from '../../workflows/sign-in';
import {
  idCardProofUpdate,
  passResultSignal,
  passkeyProofUpdate,
  registrationWorkflowId,
  signInUploadOwner,
  signInWorkflowId,
  startSignInUpdate,
  type PassResult,
  type SignInInput,
  type StartSignInRequest,
  type StepUpIdentityRequest,
} from '../../workflows/messages';
import { SignInFailure } from '../../platform/failures';
import { httpErrorOfFailure } from '../http/workflow-errors';
import { storeIdCardImage } from '../common/uploads';
import type { UploadedFile } from '../http/route-table';
import { HttpError, problems } from '../http/problems';
import type { RateLimits } from '../http/rate-limits';
import type { Passkeys } from '../passkeys/service';
import type { Devices } from '../account/devices';
import { activePassToken, passTokenHash, regIdFor } from '../registration/guard';
import { safeEqual, type IssuedTokens, type TokenService } from './tokens';
import { clock } from '../../platform/clock';

export const SIGN_IN_ROUTE = '/v1/auth/sign-in';
/** ID cards tried in one sign-in before it fails (each costs an OCR reading and an authority check). */
export const MAX_SIGN_IN_ID_CARD_ATTEMPTS = 3;
export const signInIdFor = (encryption: DataEncryption, passRequestId: string): string =>
  `sgn_${encryption.derivedId(passRequestId, 'signInId')}`;

export interface SignInServiceDeps {
  orm: Orm;
  temporal: Client;
  identity: PassTokens;
  encryption: DataEncryption;
  taskQueue: string;
  rateLimits: RateLimits;
  tokens: TokenService;
  devices: Devices;
  passkeys: Passkeys;
  ttlSeconds: number;
  passResultWaitSeconds: number;
  maxIdCardAttempts: number;
  /** NEW_DEVICE_HOLD_SECONDS, and NEW_DEVICE_HOLD_UNNOTIFIED_SECONDS for a person without a verified email. */
  holdSeconds: number;
  unnotifiedHoldSeconds: number;
}

/**
 * Sign-in on a new device, as the workflow sign-in-<signInId> runs it. The identity provider's callback goes to the
 * sign-in when the verified person has an account (to a registration otherwise): no failed registration is left
 * behind. The API checks the pass token, verifies passkey assertions, stores card images sealed, and issues tokens
 * once the workflow has recorded the second proof.
 */
export class SignInService {
  constructor(private readonly deps: SignInServiceDeps) {}

  async start(deviceId: string, passToken: string, deviceLabel: string | null) {
    return this.begin(passToken, { deviceId, deviceLabel });
  }

  /**
   * A step-up identity check of a signed-in device: the same workflow as a sign-in, started with what the check must
   * approve (api/auth/identity-checks.ts). The verification must be of the account's holder, and fresh.
   */
  async startStepUp(deviceId: string, passToken: string, stepUp: StepUpIdentityRequest) {
    return this.begin(passToken, { deviceId, deviceLabel: null, stepUp });
  }

  private async begin(passToken: string, request: Pick<StartSignInRequest, 'deviceId' | 'deviceLabel' | 'stepUp'>) {
    const { identity, encryption, temporal } = this.deps;
    const { passRequestId, expiresAt } = await activePassToken(identity, passToken);
    // The identity result of a person without an account went to a registration.
    if (await exists(temporal, registrationWorkflowId(regIdFor(encryption, passRequestId)))) {
      if (request.stepUp)
        throw httpErrorOfFailure(SignInFailure.NotSamePerson, 'the person verified is not the holder of this account');
      throw new HttpError(
        404,
        'not-registered',
        'No account for this person',
        'No account exists for the person verified: register instead (POST /v1/account/register)',
      );
    }
    const signInId = signInIdFor(encryption, passRequestId);
    try {
      const response = await temporal.workflow.executeUpdateWithStart(startSignInUpdate, {
        args: [
          {
            ...request,
            passTokenHash: passTokenHash(encryption, passToken),
            passTokenExpiresAt: expiresAt.toISOString(),
          },
        ],
        startWorkflowOperation: new WithStartWorkflowOperation(signInWorkflow, {
          ...this.startOptions(signInId, passRequestId),
          workflowIdConflictPolicy: 'USE_EXISTING',
        }),
      });
      return { signInId, response };
    } catch (error) {
      // The sign-in of this verification ended (completed, failed or expired): a verification signs in once.
      if (error instanceof WorkflowExecutionAlreadyStartedError) {
        throw problems.conflict(
          'pass-token-used',
          'This identity verification was used already (for a sign-in or an identity check): verify your identity again',
        );
      }
      throw error;
    }
  }

  /**
   * The identity provider's callback for a person who has an account: the result goes to the sign-in. Answers false
   * when the person has none (the caller starts a registration). A workflow of the other kind the app started with
   * this verification (the wrong route) is told the result too, so it refuses at once instead of waiting.
   */
  async routePassResult(result: PassResult): Promise<boolean> {
    const { encryption, orm, temporal } = this.deps;
    const registered =
      result.success &&
      !!result.ci &&
      (await orm.em.fork().count(UserEntity, { ciHash: encryption.fingerprint(result.ci, 'ci') })) > 0;
    const signInId = signInIdFor(encryption, result.passRequestId);
    if (!registered) {
      await signalIfRunning(temporal, signInWorkflowId(signInId), result);
      return false;
    }
    try {
      await temporal.workflow.signalWithStart(signInWorkflow, {
        ...this.startOptions(signInId, result.passRequestId),
        signal: passResultSignal,
        signalArgs: [result],
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error; // a late repeat of a callback we acted on
    }
    await signalIfRunning(temporal, registrationWorkflowId(regIdFor(encryption, result.passRequestId)), result);
    return true;
  }

  /** Whether this verification went to a sign-in (the registration start refuses it: duplicate-identity). */
  async isSignIn(passRequestId: string): Promise<boolean> {
    return exists(this.deps.temporal, signInWorkflowId(signInIdFor(this.deps.encryption, passRequestId)));
  }

  async status(signInId: string, passToken: string) {
    const signIn = await this.authorize(signInId, passToken);
    return {
      signInId,
      status: signIn.status,
      method: signIn.method ?? null,
      passTokenExpiresAt: signIn.passTokenExpiresAt?.toISOString() ?? null,
      tokensIssued: !!signIn.tokensIssuedAt,
    };
  }

  /** A challenge for the account's passkeys: a stored row, counted against the person's webauthn-challenge limit. */
  async passkeyOptions(signInId: string, passToken: string) {
    const signIn = await this.inProgress(signInId, passToken);
    await this.deps.rateLimits.consume('webauthn-challenge', signIn.userId);
    return this.deps.passkeys.approvalOptions(signIn.userId, { action: 'sign_in', sign_in_id: signInId });
  }

  async proveWithPasskey(
    signInId: string,
    passToken: string,
    assertion: { challengeId: string; credential: Record<string, unknown> },
    idempotencyKey: string,
  ) {
    const signIn = await this.inProgress(signInId, passToken);
    await this.deps.rateLimits.consume('sign-in-person', signIn.userId);
    // A passkey still in its own hold signs in too, but to a held device (grant).
    const passkey = await this.deps.passkeys.verifyStepUp(
      signIn.userId,
      assertion.challengeId,
      assertion.credential as unknown as AuthenticationResponseJSON,
      { action: 'sign_in', sign_in_id: signInId },
      { allowHeld: true },
    );
    return this.deps.temporal.workflow.getHandle(signInWorkflowId(signInId)).executeUpdate(passkeyProofUpdate, {
      args: [{ passkeyId: passkey.passkeyId }],
      updateId: `passkey-${idempotencyKey.toLowerCase()}`,
    });
  }

  async proveWithIdCard(
    signInId: string,
    passToken: string,
    file: UploadedFile,
    idCardType: string,
    idempotencyKey: string,
  ) {
    return this.submitIdCard(await this.inProgress(signInId, passToken), file, idCardType, idempotencyKey);
  }

  /** The ID card of a sign-in or of a step-up identity check (its caller authorized it): stored sealed, then checked. */
  async submitIdCard(signIn: SignIn, file: UploadedFile, idCardType: string, idempotencyKey: string) {
    const { signInId } = signIn;
    await this.deps.rateLimits.consume('sign-in-person', signIn.userId);
    const uploadRef = await storeIdCardImage(this.deps.orm, this.deps.encryption, signInUploadOwner(signInId), file);
    return this.deps.temporal.workflow.getHandle(signInWorkflowId(signInId)).executeUpdate(idCardProofUpdate, {
      args: [{ uploadRef, idCardType }],
      updateId: `id-card-${idempotencyKey.toLowerCase()}`,
    });
  }

  /**
   * Tokens for the device that started the sign-in, once its second proof is recorded; once only. A sign-in proved by
   * the ID card alone puts the device on hold (NEW_DEVICE_HOLD_SECONDS, longer for a person we cannot mail).
   */
  async grant(signInId: string, passToken: string, deviceId: string): Promise<IssuedTokens> {
    const { orm, devices, tokens } = this.deps;
    const signIn = await this.authorize(signInId, passToken);
    if (!signIn.deviceId || !safeEqual(signIn.deviceId, deviceId))
      throw problems.forbidden('This sign-in belongs to another device');
    if (signIn.status !== 'completed' || !signIn.method) {
      throw problems.conflict(
        'sign-in-not-completed',
        `This sign-in is ${signIn.status}: prove it with a passkey or your ID card first`,
      );
    }
    const user = await orm.em.fork().findOne(UserEntity, { id: signIn.userId });
    if (user?.status !== 'active') throw problems.inactiveUser();
    const claimed = await orm.em
      .fork()
      .nativeUpdate(SignInEntity, { signInId, tokensIssuedAt: null }, { tokensIssuedAt: clock.date() });
    if (claimed !== 1)
      throw problems.conflict(
        'sign-in-used',
        'Tokens were issued for this sign-in already: verify your identity again to sign in again',
      );
    // A passkey still in its new-passkey hold proves no more than the ID card: it may be a thief's, added minutes ago.
    const trustedPasskey = signIn.method === 'passkey' && !(await this.heldPasskey(signIn.passkeyId ?? null));
    const holdSeconds = trustedPasskey
      ? 0
      : user.emailVerifiedAt
        ? this.deps.holdSeconds
        : this.deps.unnotifiedHoldSeconds;
    const holdUntil = holdSeconds > 0 ? new Date(clock.now() + holdSeconds * 1000) : null;
    const { sessionId } = await devices.signIn({
      userId: user.id,
      deviceId: signIn.deviceId,
      label: signIn.deviceLabel ?? null,
      method: signIn.method === 'passkey' ? 'passkey' : 'id_card',
      holdUntil,
    });
    return tokens.issue(orm, { userId: user.id, deviceId: signIn.deviceId, sessionId });
  }

  /** Whether the passkey that proved a sign-in was still in its new-passkey hold (a passkey removed since: held too). */
  private async heldPasskey(passkeyId: string | null): Promise<boolean> {
    if (!passkeyId) return true;
    const passkey = await this.deps.orm.em.fork().findOne(PasskeyEntity, { passkeyId });
    return !passkey || this.deps.passkeys.heldUntil(passkey) !== null;
  }

  /** The router's check of a sign-in route's X-Pass-Token, before the request's body is read. */
  async authorizePassToken(signInId: string, passToken: string): Promise<void> {
    await this.authorize(signInId, passToken);
  }

  private async authorize(signInId: string, passToken: string): Promise<SignIn> {
    const signIn = await this.deps.orm.em.fork().findOne(SignInEntity, { signInId });
    // A step-up identity check is the signed-in device's (api/auth/identity-checks.ts), never a sign-in's.
    if (!signIn || !signIn.passTokenHash || signIn.purpose) throw problems.notFound(`Sign-in ${signInId}`);
    if (!safeEqual(signIn.passTokenHash, passTokenHash(this.deps.encryption, passToken)))
      throw problems.wrongPassToken('The X-Pass-Token does not belong to this sign-in');
    if (signIn.passTokenExpiresAt && signIn.passTokenExpiresAt.getTime() < clock.real()) {
      throw problems.invalidCredential('pass-token-expired', 'The pass token has expired; verify your identity again');
    }
    return signIn;
  }

  private async inProgress(signInId: string, passToken: string): Promise<SignIn> {
    const signIn = await this.authorize(signInId, passToken);
    if (signIn.status !== 'in_progress')
      throw problems.conflict('sign-in-not-in-progress', `This sign-in is ${signIn.status}`);
    return signIn;
  }

  private startOptions(signInId: string, passRequestId: string) {
    const args: [SignInInput] = [
      {
        signInId,
        passRequestId,
        ttlSeconds: this.deps.ttlSeconds,
        passResultWaitSeconds: this.deps.passResultWaitSeconds,
        maxIdCardAttempts: this.deps.maxIdCardAttempts,
      },
    ];
    return {
      workflowId: signInWorkflowId(signInId),
      taskQueue: this.deps.taskQueue,
      args,
      workflowIdReusePolicy: 'REJECT_DUPLICATE' as const,
    };
  }
}

async function exists(temporal: Client, workflowId: string): Promise<boolean> {
  try {
    await temporal.workflow.getHandle(workflowId).describe();
    return true;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

async function signalIfRunning(temporal: Client, workflowId: string, result: PassResult): Promise<void> {
  try {
    await temporal.workflow.getHandle(workflowId).signal(passResultSignal, result);
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
}
