import type { Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { DataEncryption } from './data-encryption';

const ENCODING = 'binary/encrypted';
const METADATA_ENCODING_KEY = 'encoding';

/**
 * Encrypts every workflow/activity payload before it reaches the Temporal server, so PII (identity results,
 * backups) never sits in plain text in workflow histories. Operators see ids, types and timings in the UI.
 */
export class EncryptionCodec implements PayloadCodec {
  constructor(private readonly encryption: DataEncryption) {}

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => ({
      metadata: { [METADATA_ENCODING_KEY]: Buffer.from(ENCODING) },
      data: this.encryption.seal(Buffer.from(temporal.api.common.v1.Payload.encode(payload).finish())),
    }));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      const encoding = payload.metadata?.[METADATA_ENCODING_KEY];
      if (!encoding || Buffer.from(encoding).toString() !== ENCODING || !payload.data) return payload;
      return temporal.api.common.v1.Payload.decode(this.encryption.open(Buffer.from(payload.data)));
    });
  }
}
