/**
 * The exchange-account port: a person's account at a Korean exchange, read with the API key pair they issued there
 * (Upbit, Bithumb). The service reads balances only; it never orders or withdraws.
 */

export type ExchangeName = 'upbit' | 'bithumb';

/** The key pair the person issued at the exchange: its access key and secret key. */
export interface ExchangeKeyPair {
  accessKey: string;
  secretKey: string;
}

/** One currency the account holds, as the exchange writes it (decimal strings). */
export interface ExchangeBalance {
  currency: string;
  /** What the person holds: available plus locked in open orders or withdrawals. */
  balance: string;
}

/**
 * Refusals of the key pair are PROVIDER_REJECTED ApplicationFailures whose first detail is
 * `{name, message}` (the exchange's own error), so the API can say what to fix (the IP allow-list, a permission, an
 * expired key); the exchange unreachable, limiting us or answering outside its API is ProviderUnavailable.
 */
export interface ExchangeAccounts {
  readonly exchange: ExchangeName;
  balances(keys: ExchangeKeyPair): Promise<ExchangeBalance[]>;
}
