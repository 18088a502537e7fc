import type Sodium from 'libsodium-wrappers';

/**
 * CODE's (CodeVASP's) request signature and payload encryption, as its developer guide ("Dev 02 - Encryption &
 * Decryption", "Dev 03 - Header Parameter") and its sample code describe them, with libsodium (the library of CODE's
 * own Node.js and Python samples):
 * - one Ed25519 key pair per VASP: the 32-byte seed is "the private key", the verify key "the public key";
 * - `X-Code-Req-Signature`: Ed25519 over the bytes of `X-Code-Req-Datetime`, then the body exactly as sent, then
 *   `X-Code-Req-Nonce` as a 4-byte big-endian unsigned integer, base64;
 * - payloads: the JSON of `{"ivms101": {...}}` sealed with NaCl box (X25519, XSalsa20-Poly1305) between the two
 *   VASPs' keys converted from Ed25519 to Curve25519, a random 24-byte nonce before the ciphertext, base64.
 */
let ready: Promise<void> | undefined;
/** libsodium, loaded and initialised on first use (a process that never talks to CODE does not load it: issue 52). */
let sodium: typeof Sodium;
export const codeCryptoReady = (): Promise<void> =>
  (ready ??= import('libsodium-wrappers').then(async ({ default: loaded }) => {
    await loaded.ready;
    sodium = loaded;
  }));

/** What seals and opens payloads: our verify key and the Curve25519 secret converted from the signing key. */
export interface CodeBoxKey {
  /** The Ed25519 verify key. */
  publicKey: Uint8Array;
  /** The X25519 secret of NaCl box (crypto_sign_ed25519_sk_to_curve25519). */
  boxSecretKey: Uint8Array;
}

export interface CodeKeyPair extends CodeBoxKey {
  /** The 32-byte seed (base64 in settings). */
  seed: Uint8Array;
  /** libsodium's 64-byte signing key (seed and public key). */
  signingKey: Uint8Array;
}

/** The signing key's seed, checked (it needs no libsodium: a process checks its setting at start, loads it later). */
export function codeSeed(seedBase64: string): Buffer {
  const seed = Buffer.from(seedBase64, 'base64');
  if (seed.length !== 32) throw new Error(`a CODE signing key is a 32-byte seed, base64 (got ${seed.length} bytes)`);
  return seed;
}

export async function codeKeyPair(seedBase64: string): Promise<CodeKeyPair> {
  await codeCryptoReady();
  const seed = codeSeed(seedBase64);
  const pair = sodium.crypto_sign_seed_keypair(seed);
  return {
    seed,
    publicKey: pair.publicKey,
    signingKey: pair.privateKey,
    boxSecretKey: sodium.crypto_sign_ed25519_sk_to_curve25519(pair.privateKey),
  };
}

/**
 * Only the box half of our key pair (for the API's CODE listener, which opens and seals payloads but signs nothing:
 * the signing key stays with the worker, which sends the requests).
 */
export async function codeBoxKey(seedBase64: string): Promise<CodeBoxKey> {
  const { publicKey, boxSecretKey, seed, signingKey } = await codeKeyPair(seedBase64);
  seed.fill(0);
  signingKey.fill(0);
  return { publicKey, boxSecretKey };
}

/** The bytes CODE signs: datetime, body, nonce (uint32, big-endian). */
export function signedBytes(datetime: string, body: string, nonce: number): Buffer {
  if (!Number.isInteger(nonce) || nonce < 0 || nonce > 0xffffffff)
    throw new Error('X-Code-Req-Nonce is an unsigned 32-bit integer');
  const nonceBytes = Buffer.alloc(4);
  nonceBytes.writeUInt32BE(nonce);
  return Buffer.concat([Buffer.from(datetime, 'utf8'), Buffer.from(body, 'utf8'), nonceBytes]);
}

export async function signCodeRequest(
  keys: CodeKeyPair,
  datetime: string,
  body: string,
  nonce: number,
): Promise<string> {
  await codeCryptoReady();
  return Buffer.from(sodium.crypto_sign_detached(signedBytes(datetime, body, nonce), keys.signingKey)).toString(
    'base64',
  );
}

export async function verifyCodeRequest(
  publicKeyBase64: string,
  signatureBase64: string,
  datetime: string,
  body: string,
  nonce: number,
): Promise<boolean> {
  await codeCryptoReady();
  try {
    return sodium.crypto_sign_verify_detached(
      Buffer.from(signatureBase64, 'base64'),
      signedBytes(datetime, body, nonce),
      Buffer.from(publicKeyBase64, 'base64'),
    );
  } catch {
    return false;
  }
}

/** Seals a payload object for the VASP whose verify key is `theirPublicKeyBase64`. */
export async function sealCodePayload(
  keys: CodeBoxKey,
  theirPublicKeyBase64: string,
  payload: object,
): Promise<string> {
  await codeCryptoReady();
  const theirs = sodium.crypto_sign_ed25519_pk_to_curve25519(Buffer.from(theirPublicKeyBase64, 'base64'));
  const nonce = sodium.randombytes_buf(sodium.crypto_box_NONCEBYTES);
  const sealed = sodium.crypto_box_easy(Buffer.from(JSON.stringify(payload), 'utf8'), nonce, theirs, keys.boxSecretKey);
  return Buffer.concat([nonce, sealed]).toString('base64');
}

/** Opens a payload the VASP whose verify key is `theirPublicKeyBase64` sealed for us; throws when it does not open. */
export async function openCodePayload(
  keys: CodeBoxKey,
  theirPublicKeyBase64: string,
  sealedBase64: string,
): Promise<unknown> {
  await codeCryptoReady();
  const bytes = Buffer.from(sealedBase64, 'base64');
  if (bytes.length <= sodium.crypto_box_NONCEBYTES + sodium.crypto_box_MACBYTES)
    throw new Error('the payload is too short to be a sealed box');
  const theirs = sodium.crypto_sign_ed25519_pk_to_curve25519(Buffer.from(theirPublicKeyBase64, 'base64'));
  const opened = sodium.crypto_box_open_easy(
    bytes.subarray(sodium.crypto_box_NONCEBYTES),
    bytes.subarray(0, sodium.crypto_box_NONCEBYTES),
    theirs,
    keys.boxSecretKey,
  );
  return JSON.parse(Buffer.from(opened).toString('utf8'));
}

export const base64Of = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');
