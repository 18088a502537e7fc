import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { PinBinding, PinService } from '../pin/service';
import type { Passkeys } from '../passkeys/service';
import type { IdentityChecks } from '../auth/identity-checks';
import type { AuthenticatedUser } from '../http/route-table';
import { problems } from '../http/problems';
import {
  identityNeedsIdCard,
  presentedProofs,
  proofField,
  type Approval,
  type PresentedProof,
  type StepUpPolicy,
  type StepUpRequest,
  type StepUpVerifier,
} from '../http/step-up';

/** How to present each proof, for the refusal that asks for one. */
const HOW: Record<PresentedProof, (request: string) => string> = {
  pin: (request) => `your PIN ("pin": a JWE whose "request" is ${request}, with a random "jti")`,
  passkey: (request) =>
    `one of your passkeys ("passkeyAssertion", its challenge from POST /v1/auth/passkeys/approvals/options with {"request":${request}})`,
  identity: (request) =>
    `a fresh identity check ("identityCheckId", from POST /v1/auth/identity-checks with {"passToken", "request":${request}})`,
};

/**
 * The router's check of a step-up (api/http/step-up.ts): the request presents exactly one proof, of a kind its route's
 * policy takes, naming this very request: the PIN (usable once), a passkey past its new-passkey hold (over a challenge
 * issued for this request, usable once), or a fresh identity check of the account holder (with the ID card where the
 * policy asks it; usable once). Anything short of that answers 422 step-up-required and runs nothing.
 */
export class StepUp implements StepUpVerifier {
  constructor(
    private readonly pins: PinService,
    private readonly passkeys: Passkeys,
    private readonly identityChecks: IdentityChecks,
  ) {}

  async verify(
    user: AuthenticatedUser,
    policy: StepUpPolicy<unknown>,
    request: StepUpRequest,
    body: Record<string, unknown>,
    idempotencyKey: string | null,
  ): Promise<Approval> {
    const pinField = proofField(policy, 'pin');
    const accepted = presentedProofs(policy);
    const presented: PresentedProof[] = [
      // A `pin` field is a proof only where the policy takes the PIN (setting the first PIN sends the new one in it).
      ...(accepted.includes('pin') && body[pinField] !== undefined ? (['pin'] as const) : []),
      ...(body[proofField(policy, 'passkey')] !== undefined ? (['passkey'] as const) : []),
      ...(body[proofField(policy, 'identity')] !== undefined ? (['identity'] as const) : []),
    ];
    const named = JSON.stringify(request);
    if (presented.length === 0 || presented.length > 1 || !accepted.includes(presented[0]!)) {
      const ways = accepted.map((p) => HOW[p](named)).join(', or ');
      throw problems.unprocessable(
        presented.length > 1 ? 'step-up-ambiguous' : 'step-up-required',
        `${presented.length > 1 ? 'Send one proof, not several. ' : ''}Your access token alone cannot ${policy.does}: confirm it with ${ways}`,
        { stepUp: { request, accepts: policy.anyOf } },
      );
    }
    const proof = presented[0]!;
    if (proof === 'pin') {
      await this.pins.verify(user.userId, body[pinField] as string, {
        field: pinField,
        request: request as PinBinding,
        idempotencyKey,
      });
      return { proof };
    }
    if (proof === 'passkey') {
      const { challengeId, credential } = body.passkeyAssertion as { challengeId: string; credential: unknown };
      const passkey = await this.passkeys.verifyStepUp(
        user.userId,
        challengeId,
        credential as AuthenticationResponseJSON,
        request,
      );
      return { proof, passkey: { passkeyId: passkey.passkeyId, createdAt: passkey.createdAt } };
    }
    return this.identityChecks.consume(
      user,
      body.identityCheckId as string,
      request,
      identityNeedsIdCard(policy),
      idempotencyKey,
    );
  }
}
