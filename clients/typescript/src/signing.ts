/**
 * Answering a prepare answer's signing slots (deploy, key rotation, transfer key, recovery...): each slot carries
 * what to sign (`payload`, a digest) and how (`parameter`); the app answers it with the owner key or a passkey.
 */

/** An owner key: anything that signs a 32-byte digest without hashing it again (an ethers Wallet's signingKey). */
export interface DigestSigner {
  signingKey: { sign(digest: string): { serialized: string } };
}

/** The answer to an owner-key slot: the slot's digest signed by the owner (secp256k1, 65 bytes). */
export function signSlot<P extends object>(slot: { id: string; parameter: P; payload?: string }, owner: DigestSigner) {
  if (!slot.payload) throw new Error(`slot ${slot.id} has no payload to sign: it is a passkey slot (approveSlot)`);
  return {
    id: slot.id,
    parameter: slot.parameter,
    signature: { authResponse: { signature: owner.signingKey.sign(slot.payload).serialized } },
  };
}

/** A WebAuthn AuthenticationResponseJSON, as navigator.credentials.get() gives it (or a platform SDK). */
export type PasskeyAssertion = { id: string; response: object } & Record<string, unknown>;

/**
 * The answer to a passkey slot: the authenticator's assertion for the slot's request options (their challenge binds
 * the operation). In a browser, get the assertion first
 * (`const assertion = await navigator.credentials.get({ publicKey: options })`, JSON-encoded) and pass
 * `{ get: () => assertion }`; a SoftwarePasskey (tests, scripts) is an authenticator as it is.
 */
export const approveSlot = (
  slot: { id: string; parameter: { options: { challenge: string; rpId: string } } },
  authenticator: { get(options: { challenge: string; rpId: string }): object },
) => ({
  id: slot.id,
  parameter: { authMethod: 'passkey' },
  signature: { authResponse: authenticator.get(slot.parameter.options) },
});
