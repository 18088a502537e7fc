import type { Payload } from '@temporalio/common';
import { EncryptionCodec } from '../../platform/payload-codec';
import type { DataEncryption } from '../../platform/data-encryption';

/** A payload as the Temporal UI's codec protocol carries it: metadata values and data in base64. */
export interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

/**
 * Fields an operator reading a workflow does not need and must not see: identity (names, birth date, phone, CI/DI),
 * the pass token, the wallet backup, bank account numbers and holders, the 1 KRW code, PINs, keys and images. They are
 * matched by name at any depth and replaced, so a new message that reuses a name is covered too.
 */
export const REDACTED_FIELDS = new Set([
  'name',
  'fullname',
  'engsurname',
  'engname',
  'birthdate',
  'gender',
  'nationality',
  'phone',
  'email',
  'ci',
  'di',
  'passtoken',
  'encryptedmnemonic',
  'encryptedderivationpaths',
  'accountno',
  'account_no',
  'holder',
  'remark',
  'code',
  'pin',
  'image',
  'idcardimage',
  'privatekey',
  'secret',
  'seed',
  'mnemonic',
  'wrappedkey',
  'encryptedkey',
  'datakey',
]);
export const REDACTED = '[redacted]';

export function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [
        key,
        REDACTED_FIELDS.has(key.toLowerCase()) && inner !== null ? REDACTED : redact(inner),
      ]),
    );
  }
  return value;
}

const JSON_ENCODING = 'json/plain';

/**
 * The Temporal UI's codec (`/codec/decode`): opens the service's encrypted payloads for an operator, then redacts the
 * personal data in JSON ones. The histories stay encrypted in Temporal; only this answer is plain.
 */
export class OperatorCodec {
  private readonly codec: EncryptionCodec;

  constructor(encryption: DataEncryption) {
    this.codec = new EncryptionCodec(encryption);
  }

  /** A payload this service did not seal (another key, tampered, not encrypted) is answered as it came. */
  async decode(payloads: JsonPayload[]): Promise<JsonPayload[]> {
    return Promise.all(
      payloads.map(async (payload) => {
        try {
          const [decoded] = await this.codec.decode([fromJson(payload)]);
          return toJson(redactPayload(decoded!));
        } catch {
          return payload;
        }
      }),
    );
  }
}

function redactPayload(payload: Payload): Payload {
  const encoding = payload.metadata?.encoding ? Buffer.from(payload.metadata.encoding).toString() : '';
  if (encoding !== JSON_ENCODING || !payload.data) return payload;
  try {
    const redacted = redact(JSON.parse(Buffer.from(payload.data).toString('utf8')));
    return { ...payload, data: Buffer.from(JSON.stringify(redacted)) };
  } catch {
    return { ...payload, data: Buffer.from(JSON.stringify(REDACTED)) }; // not JSON after all: show nothing of it
  }
}

const fromJson = (payload: JsonPayload): Payload => ({
  metadata: Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
  data: payload.data === undefined ? undefined : Buffer.from(payload.data, 'base64'),
});

const toJson = (payload: Payload): JsonPayload => ({
  metadata: Object.fromEntries(
    Object.entries(payload.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v as Uint8Array).toString('base64')]),
  ),
  ...(payload.data ? { data: Buffer.from(payload.data).toString('base64') } : {}),
});
