import { createHash, createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';
import { encodeBase58 } from 'ethers';
import { contexts as w3cContexts } from '@digitalbazaar/credentials-context';

export const CREDENTIALS_V2_URL = 'https://www.w3.org/ns/credentials/v2';
/** Our JSON-LD context for the credential types and subject terms we issue; the API serves it at /contexts/credentials/v1. */
export const WALLET_CONTEXT_URL = 'https://w3id.org/wallet-kr/credentials/v1';
const VOCAB = 'https://w3id.org/wallet-kr/credentials#';
export const WALLET_CONTEXT = {
  '@context': {
    '@protected': true,
    KycCredential: `${VOCAB}KycCredential`,
    BasicInfoCredential: `${VOCAB}BasicInfoCredential`,
    kycLevel: `${VOCAB}kycLevel`,
    identityVerification: { '@id': `${VOCAB}identityVerification`, '@container': '@set' },
    verifiedAt: { '@id': `${VOCAB}verifiedAt`, '@type': 'http://www.w3.org/2001/XMLSchema#dateTime' },
    name: 'https://schema.org/name',
    birthDate: 'https://schema.org/birthDate',
    familyName: 'https://schema.org/familyName',
    givenName: 'https://schema.org/givenName',
    nationality: 'https://schema.org/nationality',
    // evidence (VC Data Model 2.0, section 5.6): which claims the identity provider verified, which the holder only asserted
    IdentityProviderEvidence: `${VOCAB}IdentityProviderEvidence`,
    SelfAssertedEvidence: `${VOCAB}SelfAssertedEvidence`,
    checkedBy: `${VOCAB}checkedBy`,
    claims: { '@id': `${VOCAB}claims`, '@container': '@set' },
  },
} as const;

/** A W3C Verifiable Credential (Data Model 2.0) with a Data Integrity proof. */
export interface VerifiableCredential {
  '@context': string[];
  id: string;
  type: string[];
  issuer: { id: string; name: string };
  validFrom: string;
  validUntil: string;
  credentialSubject: Record<string, unknown>;
  credentialStatus?: BitstringStatusListEntry;
  evidence?: Array<Record<string, unknown>>;
  proof: Record<string, string>;
}

/** W3C Bitstring Status List v1.0, section 2.1: where a credential's status bit is. */
export interface BitstringStatusListEntry {
  id: string;
  type: 'BitstringStatusListEntry';
  statusPurpose: 'revocation';
  statusListIndex: string;
  statusListCredential: string;
}

export type UnsignedCredential = Omit<VerifiableCredential, 'proof' | 'issuer' | '@context'>;

/** Contexts are never fetched: only the ones known here can appear in what we sign. */
const documentLoader = async (url: string) => {
  const document = url === WALLET_CONTEXT_URL ? WALLET_CONTEXT : w3cContexts.get(url);
  if (!document) throw new Error(`JSON-LD context ${url} is not known to the issuer`);
  return { contextUrl: null, documentUrl: url, document };
};

/**
 * RDF Dataset Canonicalization (RDFC-1.0) to N-Quads; safe mode refuses terms the contexts do not define. jsonld is
 * loaded on the first credential (about 3 MiB a process at rest that issues none: issue 52).
 */
const canonize = async (document: object): Promise<string> => {
  const { default: jsonld } = await import('jsonld');
  return (await jsonld.canonize(
    document as never,
    {
      algorithm: 'RDFC-1.0',
      format: 'application/n-quads',
      documentLoader,
      safe: true,
    } as never,
  )) as unknown as string;
};

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const ED25519_MULTICODEC = Buffer.from([0xed, 0x01]);
/** XML Schema dateTime without fractional seconds, as credentials conventionally carry it. */
export const credentialTime = (date: Date): string => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * Issues credentials signed with the service's Ed25519 key under the `eddsa-rdfc-2022` Data Integrity cryptosuite
 * (W3C VC Data Integrity EdDSA Cryptosuites v1.0, section 3.2). The issuer is the key's did:key, which any verifier
 * resolves without a network call; its verification method is `did:key:<mb>#<mb>`.
 */
export class CredentialIssuer {
  readonly did: string;
  readonly verificationMethod: string;
  private readonly privateKey: KeyObject;

  constructor(
    seedBase64Url: string,
    readonly name: string,
  ) {
    const seed = Buffer.from(seedBase64Url, 'base64url');
    if (seed.length !== 32) throw new Error('The issuer key must be a 32-byte Ed25519 seed');
    this.privateKey = createPrivateKey({
      key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]),
      format: 'der',
      type: 'pkcs8',
    });
    const publicKey = Buffer.from(createPublicKey(this.privateKey).export({ format: 'jwk' }).x!, 'base64url');
    const multibase = `z${encodeBase58(Buffer.concat([ED25519_MULTICODEC, publicKey]))}`;
    this.did = `did:key:${multibase}`;
    this.verificationMethod = `${this.did}#${multibase}`;
  }

  async issue(unsigned: UnsignedCredential, created: Date = new Date()): Promise<VerifiableCredential> {
    const { id, type, validFrom, validUntil, credentialSubject, credentialStatus, evidence } = unsigned;
    return this.sign(
      {
        '@context': [CREDENTIALS_V2_URL, WALLET_CONTEXT_URL],
        id,
        type,
        issuer: { id: this.did, name: this.name },
        validFrom,
        validUntil,
        credentialSubject,
        ...(credentialStatus ? { credentialStatus } : {}),
        ...(evidence ? { evidence } : {}),
      },
      created,
    ) as Promise<VerifiableCredential>;
  }

  /** Adds the issuer's Data Integrity proof to a complete document (its @context, issuer and all). */
  async sign<T extends { '@context': string[] }>(
    document: T,
    created: Date = new Date(),
  ): Promise<T & { proof: Record<string, string> }> {
    const options = {
      type: 'DataIntegrityProof',
      cryptosuite: 'eddsa-rdfc-2022',
      created: credentialTime(created),
      verificationMethod: this.verificationMethod,
      proofPurpose: 'assertionMethod',
    };
    // hashData = SHA-256(canonical proof configuration) || SHA-256(canonical document); the signature covers both.
    const hashData = Buffer.concat([
      sha256(await canonize({ '@context': document['@context'], ...options })),
      sha256(await canonize(document)),
    ]);
    const proofValue = `z${encodeBase58(sign(null, hashData, this.privateKey))}`;
    return { ...document, proof: { ...options, proofValue } };
  }
}
