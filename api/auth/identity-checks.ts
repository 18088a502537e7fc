import type { Orm } from '../../db/orm';
import { SignInEntity, type SignIn } from '../../db/entities';
import type { UploadedFile, AuthenticatedUser } from '../http/route-table';
import { problems } from '../http/problems';
import { canonicalRequest, type Approval, type StepUpRequest } from '../http/step-up';
import type { SignInService } from './sign-in-service';
import type { StepUpActions } from '../common/step-up-actions';
import { clock } from '../../platform/clock';

export interface IdentityCheckDeps {
  orm: Orm;
  signIns: SignInService;
  actions: StepUpActions;
  /** STEP_UP_IDENTITY_SECONDS: how old the identity result may be when a check starts, and how long a check approves. */
  freshSeconds: number;
}

/** A check as the app sees it (GET /v1/auth/identity-checks/{identityCheckId}). */
export interface IdentityCheckView {
  identityCheckId: string;
  status: 'in_progress' | 'verified' | 'used' | 'failed' | 'expired';
  request: StepUpRequest;
  /** What is still to prove: the ID card, or nothing. */
  proofs: Array<'id_card'>;
  verifiedAt: string | null;
  expiresAt: string | null;
}

/**
 * Step-up identity checks: a signed-in device has the person verify again with the identity provider (and, where the
 * request can lose the account, show the ID card verified at registration) to approve one sensitive request, as a
 * new device's sign-in does (workflow sign-in-<identityCheckId>). A check is the account holder's (their CI), starts
 * within minutes of the verification, approves the request it names once and only from the device that made it, and
 * only for STEP_UP_IDENTITY_SECONDS after it was verified.
 */
export class IdentityChecks {
  constructor(private readonly deps: IdentityCheckDeps) {}

  async start(user: AuthenticatedUser, passToken: string, request: StepUpRequest): Promise<IdentityCheckView> {
    this.deps.actions.assertAccepts(request.action, 'identity');
    const idCard = this.deps.actions.identityNeedsIdCard(request.action);
    const { signInId } = await this.deps.signIns.startStepUp(user.deviceId, passToken, {
      userId: user.userId,
      request: canonicalRequest(request),
      idCard,
      maxResultAgeSeconds: this.deps.freshSeconds,
    });
    return this.view(await this.mine(user, signInId));
  }

  async status(user: AuthenticatedUser, identityCheckId: string): Promise<IdentityCheckView> {
    return this.view(await this.mine(user, identityCheckId));
  }

  async proveWithIdCard(
    user: AuthenticatedUser,
    identityCheckId: string,
    file: UploadedFile,
    idCardType: string,
    idempotencyKey: string,
  ): Promise<IdentityCheckView> {
    const check = await this.mine(user, identityCheckId);
    if (check.status !== 'in_progress')
      throw problems.conflict('identity-check-not-in-progress', `This identity check is ${this.view(check).status}`);
    await this.deps.signIns.submitIdCard(check, file, idCardType, idempotencyKey);
    return this.view(await this.mine(user, identityCheckId));
  }

  /**
   * Spends a verified check on the request it names (once; the same request retried with its Idempotency-Key may
   * present it again). Refuses a check of another request, device or person, one still to prove, or one too old.
   */
  async consume(
    user: AuthenticatedUser,
    identityCheckId: string,
    request: StepUpRequest,
    needsIdCard: boolean,
    idempotencyKey: string | null,
  ): Promise<Approval> {
    const check = await this.mine(user, identityCheckId);
    if (check.purpose !== canonicalRequest(request))
      throw problems.unprocessable(
        'identity-check-not-for-this-request',
        `This identity check approves another request: ${check.purpose}`,
      );
    if (check.status !== 'completed' || !check.completedAt)
      throw problems.conflict(
        'identity-check-not-verified',
        `This identity check is ${this.view(check).status}: ${check.status === 'in_progress' ? 'prove it with your ID card first' : 'start a new one'}`,
      );
    if (needsIdCard && check.method !== 'id_card')
      throw problems.unprocessable(
        'identity-check-needs-id-card',
        'This action needs an identity check proved with your ID card: start one for this request',
      );
    if (this.expired(check))
      throw problems.gone('identity-check-expired', 'This identity check is too old: verify your identity again');
    const now = clock.date();
    const spent = await this.deps.orm.em
      .fork()
      .nativeUpdate(
        SignInEntity,
        { signInId: identityCheckId, usedAt: null },
        { usedAt: now, usedIdempotencyKey: idempotencyKey },
      );
    if (spent !== 1) {
      const again = await this.deps.orm.em.fork().findOneOrFail(SignInEntity, { signInId: identityCheckId });
      if (!idempotencyKey || again.usedIdempotencyKey !== idempotencyKey)
        throw problems.conflict(
          'identity-check-used',
          'This identity check approved a request already: verify your identity again for this one',
        );
    }
    return { proof: 'identity' };
  }

  /** The caller's own check, made on this device; anything else is not found (nothing said of others' checks). */
  private async mine(user: AuthenticatedUser, identityCheckId: string): Promise<SignIn> {
    const check = await this.deps.orm.em
      .fork()
      .findOne(SignInEntity, { signInId: identityCheckId, userId: user.userId, purpose: { $ne: null } });
    if (!check || check.deviceId !== user.deviceId) throw problems.notFound(`Identity check ${identityCheckId}`);
    return check;
  }

  /**
   * Whether a check no longer approves: STEP_UP_IDENTITY_SECONDS after it was verified, and twice that after it started
   * (an ID card shown half an hour after the verification proves nothing fresh).
   */
  private expired(check: SignIn): boolean {
    const now = clock.now();
    return (
      (!!check.completedAt && check.completedAt.getTime() + this.deps.freshSeconds * 1000 < now) ||
      check.createdAt.getTime() + 2 * this.deps.freshSeconds * 1000 < now
    );
  }

  private view(check: SignIn): IdentityCheckView {
    const expiresAt = check.completedAt ? new Date(check.completedAt.getTime() + this.deps.freshSeconds * 1000) : null;
    const request = JSON.parse(check.purpose!) as StepUpRequest;
    const status: IdentityCheckView['status'] =
      check.status === 'completed'
        ? check.usedAt
          ? 'used'
          : this.expired(check)
            ? 'expired'
            : 'verified'
        : check.status;
    return {
      identityCheckId: check.signInId,
      status,
      request,
      proofs:
        check.status === 'in_progress' && this.deps.actions.identityNeedsIdCard(request.action) ? ['id_card'] : [],
      verifiedAt: check.completedAt?.toISOString() ?? null,
      expiresAt: expiresAt?.toISOString() ?? null,
    };
  }
}
