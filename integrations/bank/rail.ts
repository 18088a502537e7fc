/**
 * The bank rail port: what the service asks of the banking network, in its own words. One adapter per real provider
 * (integrations/bank/kftc.ts: the KFTC open banking API v2.0), chosen by BANK_PROVIDER.
 *
 * Money moves two ways: a deposit pays from our contracted account into a person's account (the 1 KRW verification, a
 * refund); a withdrawal takes from a person's account into ours, which the rail allows only with the person's consent
 * (obtained through the rail's own authorization, giving a token and an id per consented account). Every movement is
 * named by our `reference`: a reference is sent to the bank at most once, and asking again for it (after a crash, a
 * timeout, an answer in doubt) asks the bank what became of it instead of moving money again.
 */

/** What a movement of money came to, as the bank answered it. */
export type TransferOutcome =
  /** The money moved. */
  | { status: 'completed'; amount: bigint }
  /**
   * The bank refused it; nothing moved. `reason` in the service's words (insufficient_funds, account_closed,
   * consent_required, limit_exceeded, holder_mismatch, not_received, refused), `code` the bank's own.
   */
  | { status: 'rejected'; reason: string; code: string; detail?: string }
  /**
   * The bank has not said (processing, a timeout, no answer): ask again later; never guessed. `notReceived`: the centre
   * has had no record of the send for BANK_NOT_RECEIVED_AFTER_SECONDS, and the order said not to send it again.
   */
  | { status: 'in_doubt'; reason: string; notReceived?: true }
  /**
   * The bank answered something it does not document: an operator looks; nothing is acted on. `movedUnder`: the ids of
   * ours under which the bank says (transfer/result) the money moved, when more than one did.
   */
  | { status: 'unknown'; reason: string; movedUnder?: string[] };

/** The person on whose behalf we move money (the rail names them in every transfer). */
export interface TransferRequester {
  /** The verified name. */
  name: string;
  /** Our member number for the person, as the rail takes it (letters and digits). */
  memberId: string;
}

export interface DepositOrder {
  reference: string;
  bankCode: string;
  accountNo: string;
  /** The verified name of the account's holder: the bank refuses a deposit to an account in another name. */
  holderName: string;
  /** Won; positive. */
  amount: bigint;
  /** What the recipient's statement shows (the 1 KRW code travels here), at most 20 characters. */
  memo: string;
  /** verification: the 1 KRW code; refund: a charge's money back; payout: the person's balance paid out to them. */
  purpose: 'verification' | 'refund' | 'payout';
  requester: TransferRequester;
  /**
   * Whether a send the centre never received (no record past BANK_NOT_RECEIVED_AFTER_SECONDS) is sent again under a
   * new id (default true). A payout says false: were the first send to land late, both would pay; it is answered
   * in doubt with `notReceived` instead, for an operator.
   */
  sendAgain?: boolean;
}

export interface WithdrawalOrder {
  reference: string;
  /** The consented account's id at the rail (open banking: fintech_use_num). */
  accountRef: string;
  /**
   * The person's consent token (BankConsentTokens.accessToken), unexpired, asked for only when the withdrawal must be
   * sent (one sent before is asked about without it); undefined when the consent ended: refused (consent_required)
   * without asking the bank.
   */
  accessToken: () => Promise<string | undefined>;
  amount: bigint;
  /** What our statement shows for it, at most 20 characters. */
  memo: string;
  requester: TransferRequester;
}

/** The answer of a real-name inquiry: who holds the account, or why the bank says no such holder. */
export type AccountHolderAnswer =
  | { found: true; bankName: string; holderName: string }
  | { found: false; reason: 'no_such_account' | 'holder_mismatch' | 'refused'; code: string };

export interface BankConsentTokens {
  accessToken: string;
  refreshToken: string;
  scope: string;
  accessExpiresAt: Date;
}

/** An account the person consented to, as the rail lists it. */
export interface ConsentedAccount {
  /** The account's id at the rail, for withdrawals (fintech_use_num). */
  accountRef: string;
  bankCode: string;
  bankName: string;
  /** As the rail prints it, part hidden (e.g. 123456****1234). */
  accountNoMasked: string;
  holderName: string;
  /** Whether the person agreed to withdrawals from it (not only to inquiries). */
  withdrawalsAgreed: boolean;
}

/** A completed consent: the person's id at the rail, their token and the accounts they consented to. */
export interface BankConsentGrant {
  /** The person's id at the rail (open banking: user_seq_no). */
  userRef: string;
  /** The name of the person who consented, as the rail authenticated them. */
  personName: string;
  /**
   * The person's CI (연계정보), as the rail authenticated them, when it says: the same for a person at every Korean
   * identity agency, so it names them where a name cannot (namesakes).
   */
  personCi?: string;
  tokens: BankConsentTokens;
  accounts: ConsentedAccount[];
}

/** The rail refused a consent's code or refresh token (expired, used, not ours): the person must consent again. */
export class BankConsentRefused extends Error {
  constructor(readonly code: string) {
    super(`the bank rail refused the consent (${code})`);
    this.name = 'BankConsentRefused';
  }
}

export interface BankRail {
  /** The address a person opens (in a browser) to consent; the rail sends them back to `redirectUri`. */
  consentUrl(input: { state: string; redirectUri: string }): string;
  /** The code the rail sent back, exchanged for the person's token and the accounts they consented to. */
  completeConsent(input: { code: string; redirectUri: string }): Promise<BankConsentGrant>;
  /** A new token for a consent before its token expires. */
  refreshConsent(refreshToken: string): Promise<BankConsentTokens>;
  /**
   * Real-name inquiry: who holds an account, checked against the holder's birth date (YYYY-MM-DD). `reference` names
   * the inquiry (the rail gives every call an id of ours).
   */
  accountHolder(input: {
    reference: string;
    bankCode: string;
    accountNo: string;
    birthDate: string;
  }): Promise<AccountHolderAnswer>;
  /** Sent once per reference: asked again, it answers what became of the first send (open banking: transfer/result). */
  deposit(order: DepositOrder): Promise<TransferOutcome>;
  /**
   * How many times the bank paid a deposit of this reference, over every id it was sent under (open banking:
   * transfer/result for each), and whether one is still in doubt. Sends nothing: for watching a deposit once its
   * workflow is done, so that a send that lands late is seen.
   */
  depositsMade(input: { reference: string; amount: bigint }): Promise<{ paid: number; inDoubt: boolean }>;
  /** Sent once per reference, as deposit. */
  withdraw(order: WithdrawalOrder): Promise<TransferOutcome>;
}
