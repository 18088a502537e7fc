import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { PinBinding, PinService } from '../pin/service';
import type { Passkeys } from '../passkeys/service';
import type { IdentityChecks } from '../auth/identity-checks';
import type { AuthenticatedUser } from '../http/route-table';
import { problems } from '../http/problems';
import {
  identityNeedsIdCard,
  type Approval,
  type StepUpPolicy,
  type StepUpProof,
  type StepUpRequest,
  type StepUpVerifier,
} from '../http/step-up';

/** The one proof a request presents, by the body field that carries it. */
type Presented = 'pin' | 'passkey' | 'identity';

/** How to present each proof, for the refusal that asks for one. */
const HOW: Record<Presented, (request: string) => string> = {
  pin: (request) => `your PIN ("pin": a JWE whose "request" is ${request}, with a random "jti")`,
  passkey: (request) =>
    `one of your passkeys ("passkeyAssertion", its challenge from POST /v1/auth/passkeys/approvals/options with {"request":${request}})`,
  identity: (request) =>
    `a fresh identity check ("identityCheckId", from POST /v1/auth/identity-checks with {"passToken", "request":${request}})`,
};

/** A proof set as the request presents it: the ID card comes with the identity check that proved it. */
const presentationOf = (set: StepUpProof[]): Presented | undefined =>
  set.includes('pin') ? 'pin' : set.includes('passkey') ? 'passkey' : set.includes('identity') ? 'identity' : undefined;

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
    const pinField = policy.pinField ?? 'pin';
    const accepted = [...new Set(policy.anyOf.map(presentationOf).filter((p): p is Presented => !!p))];
    const presented: Presented[] = [
      // A `pin` field is a proof only where the policy takes the PIN (setting the first PIN sends the new one in it).
      ...(accepted.includes('pin') && body[pinField] !== undefined ? (['pin'] as const) : []),
      ...(body.passkeyAssertion !== undefined ? (['passkey'] as const) : []),
      ...(body.identityCheckId !== undefined ? (['identity'] as const) : []),
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
