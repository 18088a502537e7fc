import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import type { AuthenticatedUser } from './route-table';

/**
 * The proofs a request can carry besides its access token. An access token is a bearer credential: whoever holds it
 * (a stolen phone, a leaked log, malware) passes as the person for 15 minutes, so it proves nothing of the person.
 * - `pin`: the PIN, encrypted, naming this very request (its `request`), usable once;
 * - `passkey`: an assertion of one of the person's passkeys over a challenge issued for this very request (a passkey
 *   still inside its new-passkey hold approves nothing);
 * - `identity`: a fresh identity check: the identity provider verified the person (the account's CI) minutes ago,
 *   for this very request (`identityCheckId`, POST /v1/auth/identity-checks);
 * - `id_card`: the same identity check also proved with the ID card verified at registration (read, compared, and
 *   confirmed valid by the issuing authority);
 * - `owner_key`: the account's owner key signs the prepared user operation (checked by the service and by the chain).
 */
export type StepUpProof = 'pin' | 'passkey' | 'identity' | 'id_card' | 'owner_key';

/** What an approval names: an action and the ids it acts on, as the PIN's `request` names them. */
export type StepUpRequest = { action: string } & Record<string, string | null>;

/** How a request was approved, for the handler (a device release needs to know which passkey). */
export interface Approval {
  proof: 'pin' | 'passkey' | 'identity';
  passkey?: { passkeyId: string; createdAt: Date };
}

/**
 * A sensitive action's step-up, declared on its route: the proof it needs, whether a device in its new-device hold
 * may take it, and how the person is told. The router enforces the hold and the proof before the handler runs
 * (api/http/router.ts); docs/security.md shows the table of every route's policy (scripts/security-table.ts).
 */
/** The part of a route's input known before its body is read. */
export type RequestHead<Input> = Input extends { params: infer P; user?: infer U } ? { params: P; user?: U } : never;

export interface StepUpPolicy<Input = unknown> {
  /** The action as approvals name it (`"passkey_enrol"`): a PIN's `request.action`, a passkey challenge's, an identity check's. */
  action: string;
  /** What it does, as the device-hold refusal and the docs say it ("add a passkey"). */
  does: string;
  /** The ids the approval names besides the action, read from the request (the challenge, the passkey, the address). */
  binds?: (input: Input, ctx: Context) => Record<string, string | null>;
  /** Any one of these sets of proofs approves it (every proof of the set); `[]`: the access token suffices. */
  anyOf: StepUpProof[][];
  /** A device in its new-device hold (signed in by ID card, or by a passkey still in its own hold) is refused. */
  hold: boolean;
  /** How the person is told once it is done: the event written and whether it is mailed to every address they have. */
  notice: { event: string; mailed: boolean } | null;
  /** Only some requests of the route are the action (revoking another device, not signing oneself out). */
  appliesTo?: (head: RequestHead<Input>) => boolean;
  /**
   * The proof is checked by the handler, not the router, because something must come first (a transfer runs its
   * checks before the PIN, so a transfer that cannot pass costs no PIN attempt): who checks it, for the docs.
   */
  checkedBy?: string;
  /** The body field of the PIN, when not `pin` (a PIN change's `current_pin`). */
  pinField?: string;
}

/** Checks a request's proofs against its route's policy (api/common/step-up.ts implements it). */
export interface StepUpVerifier {
  verify(
    user: AuthenticatedUser,
    policy: StepUpPolicy<unknown>,
    request: StepUpRequest,
    body: Record<string, unknown>,
    idempotencyKey: string | null,
  ): Promise<Approval>;
}

/** The request an approval of this route must name: the action and what the policy binds. */
export const stepUpRequestOf = <Input>(policy: StepUpPolicy<Input>, input: Input, ctx: Context): StepUpRequest => ({
  action: policy.action,
  ...(policy.binds?.(input, ctx) ?? {}),
});

/** The canonical text of a request (sorted keys): the same request always gives the same text. */
export const canonicalRequest = (request: StepUpRequest): string =>
  JSON.stringify(Object.fromEntries(Object.entries(request).sort(([a], [b]) => a.localeCompare(b))));

/**
 * A proof the request itself carries, in a body field: the PIN, a passkey's assertion, an identity check (the ID card
 * comes with the identity check that proved it; the owner key signs a prepared operation, not the request).
 */
export type PresentedProof = 'pin' | 'passkey' | 'identity';

/** The proof a set of the policy is presented as. */
const presentationOf = (set: StepUpProof[]): PresentedProof | undefined =>
  set.includes('pin') ? 'pin' : set.includes('passkey') ? 'passkey' : set.includes('identity') ? 'identity' : undefined;

/** The proofs a request of this policy presents one of: none where the token alone or the owner key's signature does. */
export const presentedProofs = (policy: Pick<StepUpPolicy<unknown>, 'anyOf'>): PresentedProof[] => [
  ...new Set(policy.anyOf.map(presentationOf).filter((proof): proof is PresentedProof => !!proof)),
];

/** The body field that carries a presented proof. */
export const proofField = (policy: Pick<StepUpPolicy<unknown>, 'pinField'>, proof: PresentedProof): string =>
  proof === 'pin' ? (policy.pinField ?? 'pin') : proof === 'passkey' ? 'passkeyAssertion' : 'identityCheckId';

/** Whether an identity check for this policy must also prove the ID card: every set that takes `identity` needs it. */
export const identityNeedsIdCard = (policy: Pick<StepUpPolicy<unknown>, 'anyOf'>): boolean => {
  const sets = policy.anyOf.filter((set) => set.includes('identity'));
  return sets.length > 0 && sets.every((set) => set.includes('id_card'));
};

/**
 * The digest an approval names for a request's content (a new PIN's JWE, a backup, an ID-card image): base64url
 * SHA-256 of its bytes (a text as UTF-8).
 */
export const sha256Base64Url = (data: string | Uint8Array): string =>
  createHash('sha256').update(data).digest('base64url');

/** The canonical JSON of flat string fields: keys sorted, no spaces (what a backup's approval digests). */
export const canonicalJson = (fields: Record<string, string>): string =>
  JSON.stringify(Object.fromEntries(Object.entries(fields).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
