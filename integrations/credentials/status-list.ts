import { gzipSync } from 'node:zlib';
import { randomInt } from 'node:crypto';
import { CREDENTIALS_V2_URL, credentialTime, type BitstringStatusListEntry, type CredentialIssuer } from './issuer';

/**
 * W3C Bitstring Status List v1.0: a credential's status is one bit of a list the issuer signs and serves. 131 072
 * bits (16 KiB) is the specification's minimum, for group privacy: a verifier fetching the list learns nothing about
 * which credential it checks.
 */
export const STATUS_LIST_LENGTH = 131_072;
/** How long a verifier may cache a list (the credential's `ttl`, milliseconds; the API's Cache-Control agrees). */
export const STATUS_LIST_TTL_MS = 60_000;

export const statusListUrl = (baseUrl: string, listId: number): string =>
  `${baseUrl.replace(/\/+$/, '')}/v1/credentials/status/${listId}`;

/** Random parameters of a new list's position bijection: an odd multiplier (not 1: neighbours stay apart) and an offset, both below the length. */
export const newListParameters = (length = STATUS_LIST_LENGTH) => ({
  multiplier: randomInt(1, length / 2) * 2 + 1,
  offset: randomInt(0, length),
});

/** The position of the n-th credential in a list: a bijection on [0, length) since the multiplier is odd and length a power of two. */
export const statusIndex = (list: { length: number; multiplier: number; offset: number }, allocation: number): number =>
  (allocation * list.multiplier + list.offset) % list.length;

export const statusEntry = (baseUrl: string, listId: number, index: number): BitstringStatusListEntry => {
  const url = statusListUrl(baseUrl, listId);
  return {
    id: `${url}#${index}`,
    type: 'BitstringStatusListEntry',
    statusPurpose: 'revocation',
    statusListIndex: String(index),
    statusListCredential: url,
  };
};

/**
 * The list's `encodedList` (section 3.2): bit 0 is the left-most (most significant) bit of the first byte; the
 * bytes are GZIP-compressed, then base64url without padding, with the multibase prefix `u`.
 */
export function encodeStatusList(setIndices: Iterable<number>, length = STATUS_LIST_LENGTH): string {
  const bits = Buffer.alloc(length / 8);
  for (const index of setIndices) {
    if (!Number.isInteger(index) || index < 0 || index >= length)
      throw new RangeError(`status index ${index} is outside the list`);
    bits[index >> 3]! |= 0x80 >> (index & 7);
  }
  return `u${gzipSync(bits).toString('base64url')}`;
}

/** The signed BitstringStatusListCredential of a list whose set bits are the revoked credentials. */
export function signStatusList(
  issuer: CredentialIssuer,
  input: { baseUrl: string; listId: number; revoked: Iterable<number>; length?: number; at?: Date },
) {
  const url = statusListUrl(input.baseUrl, input.listId);
  const at = input.at ?? new Date();
  return issuer.sign(
    {
      '@context': [CREDENTIALS_V2_URL],
      id: url,
      type: ['VerifiableCredential', 'BitstringStatusListCredential'],
      issuer: { id: issuer.did, name: issuer.name },
      validFrom: credentialTime(at),
      credentialSubject: {
        id: `${url}#list`,
        type: 'BitstringStatusList',
        statusPurpose: 'revocation',
        encodedList: encodeStatusList(input.revoked, input.length),
        ttl: STATUS_LIST_TTL_MS,
      },
    },
    at,
  );
}
