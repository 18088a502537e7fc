import { CompactEncrypt, importJWK, type JWK } from 'jose';

/** What a PIN approves: one request (its action and fields), once. */
export type PinRequest = Record<string, string | null>;

/** The fields of a crypto transfer its PIN approves. */
export interface TransferFields {
  to_address: string;
  network: string;
  token: string;
  amount: string;
  beneficiary_name?: string;
  /** The recipient's Travel Address (TRP "ta…"), when their account is at another VASP. */
  travel_address?: string;
  /** The recipient's exchange on CODE's Travel Rule network (its entity id), instead of a Travel Address. */
  beneficiary_vasp?: string;
}

/** What the PIN of a transfer approves: that transfer and its Idempotency-Key (or none). */
export const transferRequest = (body: TransferFields, idempotencyKey?: string): PinRequest => ({
  action: 'transfer',
  to_address: body.to_address,
  network: body.network,
  token: body.token,
  amount: body.amount,
  ...(body.beneficiary_name !== undefined ? { beneficiary_name: body.beneficiary_name } : {}),
  ...(body.travel_address !== undefined ? { travel_address: body.travel_address } : {}),
  ...(body.beneficiary_vasp !== undefined ? { beneficiary_vasp: body.beneficiary_vasp } : {}),
  idempotency_key: idempotencyKey ?? null,
});

/** The fields of a payout its PIN approves: the amount and the verified account it goes to. */
export interface PayoutFields {
  bank_account_id: string;
  amount: string;
}

/** What the PIN of a payout (POST /api/v1/payouts) approves: that amount, to that account. */
export const payoutRequest = (body: PayoutFields): PinRequest => ({
  action: 'payout',
  amount: body.amount,
  bank_account_id: body.bank_account_id,
});

const sha256Base64Url = async (data: string | Uint8Array): Promise<string> =>
  Buffer.from(
    await crypto.subtle.digest('SHA-256', typeof data === 'string' ? new TextEncoder().encode(data) : data),
  ).toString('base64url');

/**
 * What the PIN of a SOLANA swap (POST /v1/exchange/swaps with quoteId) approves: that quote, by the SHA-256 of its
 * quoteId, and the request's Idempotency-Key.
 */
export const swapRequest = async (quoteId: string, idempotencyKey: string): Promise<PinRequest> => ({
  action: 'swap',
  quote_sha256: await sha256Base64Url(quoteId),
  idempotency_key: idempotencyKey,
});

/** A wallet backup as the service stores it (the app encrypts it before sending). */
export interface WalletBackupFields {
  encryptedMnemonic: string;
  encryptedDerivationPaths: string;
  encryptionMethod: string;
}

/**
 * What approves replacing the wallet backup (PUT /v1/account/backup) with this one: the SHA-256 of its canonical JSON
 * (the three fields, keys sorted, no spaces), so an approval seen in transit stores no other backup.
 */
export const backupReplaceRequest = async (backup: WalletBackupFields): Promise<PinRequest> => ({
  action: 'backup_replace',
  backup_sha256: await sha256Base64Url(
    JSON.stringify({
      encryptedDerivationPaths: backup.encryptedDerivationPaths,
      encryptedMnemonic: backup.encryptedMnemonic,
      encryptionMethod: backup.encryptionMethod,
    }),
  ),
});

/**
 * What approves a KYC renewal (POST /v1/account/kyc/renew) with this ID-card image: the SHA-256 of the file's bytes as
 * sent, and its idCardType, so an approval seen in transit puts no other card on file.
 */
export const kycRenewRequest = async (image: Uint8Array, idCardType: string): Promise<PinRequest> => ({
  action: 'kyc_renew',
  id_card_image_sha256: await sha256Base64Url(image),
  id_card_type: idCardType,
});

/**
 * The PIN as the service takes it: a compact JWE (ECDH-ES+A256KW, A256GCM) of {pin, iat} to the service's published
 * key (GET /api/v1/pin/public-key); with a request, it approves that request only, once (a random jti is added).
 */
export class PinEncryptor {
  constructor(private readonly publicKey: () => Promise<JWK>) {}

  async encrypt(pin: string, options: { request?: PinRequest; iat?: number; jti?: string } = {}): Promise<string> {
    const jwk = await this.publicKey();
    const payload = {
      pin,
      iat: options.iat ?? Math.floor(Date.now() / 1000),
      ...(options.request ? { request: options.request, jti: options.jti ?? crypto.randomUUID() } : {}),
    };
    return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(payload)))
      .setProtectedHeader({ alg: 'ECDH-ES+A256KW', enc: 'A256GCM', kid: jwk.kid })
      .encrypt(await importJWK(jwk, 'ECDH-ES+A256KW'));
  }

  /** The PIN approving one request an access token alone cannot make (docs/security.md lists them and what each binds). */
  approving(pin: string, request: PinRequest): Promise<string> {
    return this.encrypt(pin, { request });
  }

  /** The PIN approving the first deploy prepare's owner key: `{"action":"owner_set","owner_address":…}`. */
  ownerKey(pin: string, ownerAddress: string): Promise<string> {
    return this.approving(pin, { action: 'owner_set', owner_address: ownerAddress });
  }

  /** The PIN approving this transfer, sent with this Idempotency-Key. */
  forTransfer(pin: string, body: TransferFields, idempotencyKey?: string): Promise<string> {
    return this.encrypt(pin, { request: transferRequest(body, idempotencyKey) });
  }

  /** The PIN approving a SOLANA swap of this quote, sent with this Idempotency-Key. */
  async forSwap(pin: string, quoteId: string, idempotencyKey: string): Promise<string> {
    return this.encrypt(pin, { request: await swapRequest(quoteId, idempotencyKey) });
  }

  /** A PIN change's body: the new PIN, and the current one approving exactly that new one. */
  async change(current: string, next: string): Promise<{ current_pin: string; new_pin: string }> {
    const newPin = await this.encrypt(next);
    return {
      current_pin: await this.encrypt(current, {
        request: { action: 'pin_change', new_pin_sha256: await sha256Base64Url(newPin) },
      }),
      new_pin: newPin,
    };
  }

  /** A payout's body (POST /api/v1/payouts), approved by the PIN bound to its amount and account. */
  async payout(pin: string, body: PayoutFields): Promise<PayoutFields & { currency: 'KRW'; pin: string }> {
    return { ...body, currency: 'KRW', pin: await this.encrypt(pin, { request: payoutRequest(body) }) };
  }

  /**
   * An account closure's body, approved by the PIN; with a won balance, name the verified account it is paid back to
   * (bound into the approval too).
   */
  async closeAccount(
    pin: string,
    bankAccountId?: string,
  ): Promise<{ confirm: 'CLOSE'; pin: string; bank_account_id?: string }> {
    const account: Record<string, string> = bankAccountId ? { bank_account_id: bankAccountId } : {};
    return {
      confirm: 'CLOSE',
      ...account,
      pin: await this.encrypt(pin, { request: { action: 'account_close', ...account } }),
    };
  }
}
