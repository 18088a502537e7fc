import { problems } from '../http/problems';
import { identityNeedsIdCard, type StepUpPolicy } from '../http/step-up';

/**
 * The step-up actions the routes declare (api/http/step-up.ts), by name: what an approval made ahead of its request
 * (a passkey challenge, an identity check) may name, and what it must prove. The route table declares every route's
 * policy here as it is built, so the policies stay on their routes and this is only their index.
 */
export class StepUpActions {
  private readonly policies = new Map<string, Array<Pick<StepUpPolicy<unknown>, 'anyOf'>>>();

  declare(policy: Pick<StepUpPolicy<unknown>, 'action' | 'anyOf'>): void {
    const known = this.policies.get(policy.action) ?? [];
    this.policies.set(policy.action, [...known, policy]);
  }

  /** The actions a proof of this kind can approve (for the docs and the refusal of any other). */
  accepting(proof: 'passkey' | 'identity'): string[] {
    return [...this.policies]
      .filter(([, policies]) => policies.some((p) => p.anyOf.some((set) => set.includes(proof))))
      .map(([action]) => action);
  }

  /** Refuses (422) an approval ahead of a request for an action no route takes that proof for. */
  assertAccepts(action: string, proof: 'passkey' | 'identity'): void {
    if (this.accepting(proof).includes(action)) return;
    throw problems.unprocessable(
      'step-up-action-unknown',
      `No request with action "${action}" takes ${proof === 'passkey' ? 'a passkey' : 'an identity check'}; actions that do: ${this.accepting(proof).join(', ')}`,
    );
  }

  /** Whether an identity check approving this action must be proved with the ID card too (any route of it says so). */
  identityNeedsIdCard(action: string): boolean {
    return (this.policies.get(action) ?? []).some((policy) => identityNeedsIdCard(policy));
  }
}
