import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { PinBinding, PinService } from '../pin/service';
import { problems } from '../http/problems';
import type { Passkeys } from './service';

/** The request a step-up approves, named as the PIN's `request` names it: an action and the ids it acts on. */
export type StepUpRequest =
  | { action: 'passkey_enrol'; challenge_id: string }
  | { action: 'passkey_remove'; passkey_id: string }
  | { action: 'account_close' }
  | { action: 'device_revoke'; device_id: string }
  | { action: 'device_release'; device_id: string }
  /** A sign-in on a new device, proved with a passkey of the account (no access token yet: asked with the pass token). */
  | { action: 'sign_in'; sign_in_id: string };

export interface StepUpProof {
  pin?: string;
  passkeyAssertion?: { challengeId: string; credential: Record<string, unknown> };
}

/**
 * A change that protects or ends the account (adding or removing a passkey, closing the account) needs more than an
 * access token, which is a bearer credential that can be stolen: the PIN bound to this very request (usable once), or
 * an assertion of one of the user's passkeys over a challenge issued for this very request (usable once).
 */
export class StepUp {
  constructor(
    private readonly pins: PinService,
    private readonly passkeys: Passkeys,
  ) {}

  /** Answers how the request was approved; refuses (422, 409, 423 from the PIN) anything short of one valid proof. */
  async verify(
    userId: string,
    proof: StepUpProof,
    request: StepUpRequest,
    idempotencyKey: string | null,
  ): Promise<'pin' | 'passkey'> {
    if (proof.pin && proof.passkeyAssertion)
      throw problems.unprocessable('step-up-ambiguous', 'Send either pin or passkeyAssertion, not both');
    if (proof.pin) {
      await this.pins.verify(userId, proof.pin, { request: request as unknown as PinBinding, idempotencyKey });
      return 'pin';
    }
    if (proof.passkeyAssertion) {
      const { challengeId, credential } = proof.passkeyAssertion;
      await this.passkeys.verifyStepUp(
        userId,
        challengeId,
        credential as unknown as AuthenticationResponseJSON,
        request,
      );
      return 'passkey';
    }
    throw problems.unprocessable(
      'step-up-required',
      `Confirm this with your PIN ("pin": a JWE whose "request" is ${JSON.stringify(request)}, with a random "jti") or with one of your passkeys ("passkeyAssertion", challenge from POST /v1/auth/passkeys/approvals/options)`,
    );
  }
}
