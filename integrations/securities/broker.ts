/**
 * The securities port: a broker's account inquiry, as the person's own credentials at that broker open it. The
 * service keeps nothing of them (the route verifies and lists; see docs/assets-and-quotes.md).
 */

/** One account at the broker: its number (as the broker writes it, unmasked) and its total value in won. */
export interface SecuritiesAccountValue {
  accountNo: string;
  /** The account's total evaluation (securities at market value plus cash), whole won. */
  totalKrw: bigint;
}

export interface SecuritiesHoldings {
  firmCode: string;
  firmName: string;
  accounts: SecuritiesAccountValue[];
}

/** What the person gives: the broker's API key pair issued for one account (KIS Developers: app key and secret). */
export interface SecuritiesAppKey {
  accountNo: string;
  appKey: string;
  appSecret: string;
}

/**
 * A broker's account inquiry. A refusal of the person's credentials or account is a PROVIDER_REJECTED
 * ApplicationFailure (the route answers verified: false); the broker unreachable, slow or limiting us is
 * ProviderUnavailable (503, try again).
 */
export interface SecuritiesBroker {
  /** The firm this adapter speaks to (its securities firm code, e.g. 243 한국투자증권, and its name). */
  readonly firm: { code: string; name: string };
  /** The account and its value, once the broker accepted the key pair for it. */
  holdingsByAppKey(input: SecuritiesAppKey): Promise<SecuritiesHoldings>;
}
