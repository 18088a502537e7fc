import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  createSecretKey,
  randomBytes,
  type KeyObject,
} from 'node:crypto';

/**
 * AES-256-GCM for PII and secrets at rest (ID-card images, identity results), and keyed hashes for values
 * that only need to be compared (pass tokens, CI/DI, refresh tokens). The key comes from DATA_ENCRYPTION_KEY.
 * Layout of a sealed value: version byte (1) | 12-byte nonce | 16-byte tag | ciphertext.
 */
export class DataEncryption {
  // Key objects, not buffers: a raw key would be imported again on every call (a fifth of a profile read's CPU).
  private readonly key: KeyObject;
  private readonly macKey: KeyObject;

  constructor(base64Key: string) {
    const key = Buffer.from(base64Key, 'base64');
    if (key.length !== 32) throw new Error('DATA_ENCRYPTION_KEY must be 32 bytes, base64');
    this.key = createSecretKey(createHash('sha256').update('enc|').update(key).digest());
    this.macKey = createSecretKey(createHash('sha256').update('mac|').update(key).digest());
  }

  seal(plain: Buffer, associatedData = ''): Buffer {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    cipher.setAAD(Buffer.from(associatedData));
    const body = Buffer.concat([cipher.update(plain), cipher.final()]);
    return Buffer.concat([Buffer.from([1]), nonce, cipher.getAuthTag(), body]);
  }

  open(sealed: Buffer, associatedData = ''): Buffer {
    if (sealed[0] !== 1) throw new Error('unknown sealed-value version');
    const decipher = createDecipheriv('aes-256-gcm', this.key, sealed.subarray(1, 13));
    decipher.setAAD(Buffer.from(associatedData));
    decipher.setAuthTag(sealed.subarray(13, 29));
    return Buffer.concat([decipher.update(sealed.subarray(29)), decipher.final()]);
  }

  sealText(plain: string, associatedData = ''): string {
    return this.seal(Buffer.from(plain, 'utf8'), associatedData).toString('base64');
  }

  openText(sealed: string, associatedData = ''): string {
    return this.open(Buffer.from(sealed, 'base64'), associatedData).toString('utf8');
  }

  /** A stable identifier derived from `value` that reveals nothing about it (hex, `length` characters). */
  derivedId(value: string, purpose: string, length = 24): string {
    return createHmac('sha256', this.macKey).update(`id|${purpose}|${value}`).digest('hex').slice(0, length);
  }

  /** A keyed hash: equal inputs compare equal, the input cannot be recovered without the key. */
  fingerprint(value: string, purpose: string): string {
    return createHmac('sha256', this.macKey).update(`${purpose}|${value}`).digest('base64url');
  }
}
