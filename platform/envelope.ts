import { randomBytes } from 'node:crypto';
import { DataEncryption } from './data-encryption';

/**
 * Envelope encryption for keys the service holds: each secret gets its own data key (AES-256-GCM), and the data key
 * is stored wrapped by the master key (KEY_ENCRYPTION_KEY, from config or a KMS in production). Rotating the master
 * key re-wraps data keys without touching the secrets; a leaked row is useless without the master key.
 */
export class EnvelopeEncryption {
  private readonly master: DataEncryption;

  constructor(
    masterKeyBase64: string,
    private readonly masterKeyId = 'kek-1',
  ) {
    this.master = new DataEncryption(masterKeyBase64);
  }

  seal(secret: string, associatedData: string): string {
    const dataKey = randomBytes(32).toString('base64');
    return JSON.stringify({
      v: 1,
      kek: this.masterKeyId,
      dek: this.master.sealText(dataKey, associatedData),
      data: new DataEncryption(dataKey).sealText(secret, associatedData),
    });
  }

  open(sealed: string, associatedData: string): string {
    const envelope = JSON.parse(sealed) as { v: number; kek: string; dek: string; data: string };
    if (envelope.v !== 1 || envelope.kek !== this.masterKeyId)
      throw new Error(`envelope sealed under ${envelope.kek}, not ${this.masterKeyId}`);
    return new DataEncryption(this.master.openText(envelope.dek, associatedData)).openText(
      envelope.data,
      associatedData,
    );
  }
}
