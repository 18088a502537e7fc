import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { Encoder } from 'cbor-x';

const b64url = (bytes: Buffer | Uint8Array): string => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Buffer | string): Buffer => createHash('sha256').update(data).digest();
const cbor = new Encoder({ useRecords: false, mapsAsObjects: false, tagUint8Array: false });

/** WebAuthn authenticator data flags (WebAuthn Level 3, section 6.1). */
const FLAGS = { userPresent: 0x01, userVerified: 0x04, attestedCredentialData: 0x40 };

/**
 * For tests and scripts, never a real user's key: a platform authenticator in software, as a phone would act for
 * navigator.credentials: a P-256 (ES256) key, "none" attestation, a signature counter, and the client data a browser builds. It is written from the WebAuthn
 * specification (with node:crypto and the cbor-x encoder), independently of the server library that verifies it.
 */
export class SoftwarePasskey {
  readonly credentialId = randomBytes(32);
  private readonly privateKey: KeyObject;
  private readonly publicJwk: { x: string; y: string };
  private counter = 0;

  constructor(readonly origin = 'http://localhost:3000') {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = privateKey;
    this.publicJwk = publicKey.export({ format: 'jwk' }) as { x: string; y: string };
  }

  get id(): string {
    return b64url(this.credentialId);
  }

  /** navigator.credentials.create(): a RegistrationResponseJSON for the server's creation options. */
  create(options: { challenge: string; rp: { id?: string } }, overrides: { origin?: string; type?: string } = {}) {
    const clientDataJSON = Buffer.from(
      JSON.stringify({
        type: overrides.type ?? 'webauthn.create',
        challenge: options.challenge,
        origin: overrides.origin ?? this.origin,
        crossOrigin: false,
      }),
    );
    // COSE_Key (RFC 9053): kty EC2 (2), alg ES256 (-7), crv P-256 (1), x, y.
    const coseKey = cbor.encode(
      new Map<number, unknown>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(this.publicJwk.x, 'base64url')],
        [-3, Buffer.from(this.publicJwk.y, 'base64url')],
      ]),
    );
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const attestedCredentialData = Buffer.concat([Buffer.alloc(16) /* AAGUID */, idLength, this.credentialId, coseKey]);
    const authData = Buffer.concat([
      this.authenticatorDataHead(options.rp.id!, FLAGS.userPresent | FLAGS.userVerified | FLAGS.attestedCredentialData),
      attestedCredentialData,
    ]);
    const attestationObject = cbor.encode(
      new Map<string, unknown>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    );
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key' as const,
      response: {
        clientDataJSON: b64url(clientDataJSON),
        attestationObject: b64url(attestationObject),
        transports: ['internal'],
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform' as const,
    };
  }

  /** navigator.credentials.get(): an AuthenticationResponseJSON for request options (a passkey slot's options). */
  get(options: { challenge: string; rpId: string }, overrides: { origin?: string; userVerified?: boolean } = {}) {
    const clientDataJSON = Buffer.from(
      JSON.stringify({
        type: 'webauthn.get',
        challenge: options.challenge,
        origin: overrides.origin ?? this.origin,
        crossOrigin: false,
      }),
    );
    const flags = FLAGS.userPresent | (overrides.userVerified === false ? 0 : FLAGS.userVerified);
    const authenticatorData = this.authenticatorDataHead(options.rpId, flags);
    const signature = sign('sha256', Buffer.concat([authenticatorData, sha256(clientDataJSON)]), this.privateKey); // DER, as WebAuthn ES256
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key' as const,
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authenticatorData),
        signature: b64url(signature),
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform' as const,
    };
  }

  /** rpIdHash (32) | flags (1) | signCount (4, big-endian), incremented on every use. */
  private authenticatorDataHead(rpId: string, flags: number): Buffer {
    this.counter += 1;
    const count = Buffer.alloc(4);
    count.writeUInt32BE(this.counter);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), count]);
  }
}
