import { Type, type Static } from '@sinclair/typebox';
import {
  ProviderAnswerInvalid,
  ProviderUnavailable,
  expectAnswer,
  requestProvider,
  type ProviderHttpOptions,
} from '../provider-http';
import type { IdCardAuthenticity, IdCardCheckResult, IdCardToCheck } from './authenticity';
import { UsebToken } from './useb-token';

/**
 * The ID-card authenticity check on useB's status API (`https://api3.useb.co.kr`): `/status/idcard` asks 행정안전부 of
 * a resident card, `/status/driver` 도로교통공단 of a driver's licence. useB answers a failure with a non-200 status and
 * the same JSON as a success (`success`, `message`, `error_code`, `transaction_id`), so the body is read whatever the
 * status. useB takes no idempotency key nor request id (its `transaction_id` is its own): a retry after a lost answer
 * asks again and may be billed again.
 */
export interface UsebIdCardCheckOptions {
  /** useB's API (ID_CARD_CHECK_URL). */
  apiUrl: string;
  /** useB's token service (ID_CARD_CHECK_AUTH_URL). */
  authUrl: string;
  clientId: string;
  clientSecret: string;
  transport: Pick<ProviderHttpOptions, 'timeoutMs' | 'tls'>;
  /** The time, to know when the token expires (tests move it); Date.now by default. */
  now?: () => number;
}

export const UsebStatusAnswer = Type.Union([
  Type.Object({ success: Type.Literal(true), message: Type.String(), transaction_id: Type.Optional(Type.String()) }),
  Type.Object({
    success: Type.Literal(false),
    message: Type.String(),
    error_code: Type.String(),
    transaction_id: Type.Optional(Type.String()),
  }),
]);
export type UsebStatusAnswer = Static<typeof UsebStatusAnswer>;

/** The authority's verdicts, by useB's codes (useB's docs, v1.4.0, as copied by a third party). */
const VERDICTS: Record<string, IdCardCheckResult> = {
  A001: 'mismatch', // idcard_number_invalid
  A002: 'mismatch', // idcard_issuedate_invalid
  A003: 'mismatch', // parameter_missing
  A004: 'mismatch', // idcard_error: the name or the issue date is not the card's
  A011: 'mismatch', // id_number_invalid (a licence's resident number)
  A013: 'mismatch', // driver_error: the licence number, birth date or name
  A014: 'mismatch', // serial_number_invalid: not this licence's card
  A005: 'locked', // issue_date_error: five wrong issue dates, unlocked at gov.kr
  A006: 'reported_lost', // idcard_lost
  A016: 'expired', // license_number_invalid: a superseded licence number
};

/** Codes of a check that did not happen: useB or the authority is down or busy, or useB refuses our account. */
const NOT_CHECKED: Record<string, string> = {
  A015: 'scrapping_error: useB could not read the authority',
  C016: "network_time_out: the authority's network failed",
  C061: 'server_error: the authority is down or in maintenance',
  C504: 'gateway_time_out: no answer within 15 s',
  C429: 'too_many_requests',
  C071: 'out_of_credit: ask useB for credit',
  C004: 'account_suspended: ask useB',
};

/** useB did not take our token (token_invalid, token_issuer_mismatch): renewed once. */
const TOKEN_REFUSED = new Set(['C011', 'C013']);

export class UsebIdCardCheck implements IdCardAuthenticity {
  private readonly api: ProviderHttpOptions;
  private readonly token: UsebToken;

  constructor(options: UsebIdCardCheckOptions) {
    const { timeoutMs, tls } = options.transport;
    this.api = { baseUrl: options.apiUrl, timeoutMs, tls };
    this.token = new UsebToken(
      { baseUrl: options.authUrl, timeoutMs, tls },
      { clientId: options.clientId, clientSecret: options.clientSecret },
      options.now ?? Date.now,
    );
  }

  /** `_requestId`: useB takes none (see above). */
  async check(card: IdCardToCheck, _requestId: string): Promise<IdCardCheckResult> {
    const request = requestOf(card);
    if (request === 'unsupported') return 'unsupported';
    if (request === 'incomplete') return 'mismatch';
    let jwt = await this.token.get();
    let answer = await this.ask(request, jwt);
    if (!answer.success && TOKEN_REFUSED.has(answer.error_code)) {
      this.token.drop(jwt);
      jwt = await this.token.get();
      answer = await this.ask(request, jwt);
    }
    return verdictOf(answer);
  }

  private async ask(request: { path: string; body: object }, jwt: string): Promise<UsebStatusAnswer> {
    // `Bearer <jwt>`, as useB's Node client sends it (src/resources/_Base.ts) and its docs (a third-party copy) show
    // it; only its Go SDK sends the bare token.
    const { body } = await requestProvider<unknown>(this.api, 'POST', request.path, request.body, {
      authorization: `Bearer ${jwt}`,
    });
    return expectAnswer(UsebStatusAnswer, body, `useB ${request.path}`);
  }
}

/**
 * The call that checks this card. A card without the details the check needs (unread, or not of their form) is
 * answered as useB would (A001, A003, A013: mismatch) without paying for the call.
 */
function requestOf(card: IdCardToCheck): { path: string; body: object } | 'unsupported' | 'incomplete' {
  const compact = (date: string | undefined) =>
    date && /^\d{4}-\d{2}-\d{2}$/.test(date) ? date.replace(/-/g, '') : '';
  const idNumber = /^\d{13}$/.test(card.idNumber ?? '') ? card.idNumber! : '';
  switch (card.kind) {
    case 'resident_id': {
      const issueDate = compact(card.issueDate);
      if (!idNumber || !issueDate || !card.name) return 'incomplete';
      return { path: '/status/idcard', body: { identity: idNumber, issueDate, userName: card.name } };
    }
    case 'driver_license': {
      const license = /^\d{12}$/.exec(card.licenseNumber ?? '')?.[0];
      const birthDate = compact(card.birthDate);
      if (!license || !birthDate || !card.name) return 'incomplete';
      const licenseNo = `${license.slice(0, 2)}-${license.slice(2, 4)}-${license.slice(4, 10)}-${license.slice(10)}`;
      return {
        path: '/status/driver',
        body: {
          userName: card.name,
          birthDate,
          licenseNo,
          ...(idNumber ? { juminNo: idNumber } : {}),
          // Without the serial the authority confirms the licence, not this card.
          ...(card.licenseSerial ? { serialNo: card.licenseSerial } : {}),
        },
      };
    }
    default:
      return 'unsupported';
  }
}

/** The verdict of a schema-checked answer; a check that did not happen, or an unknown code, is thrown. */
export function verdictOf(answer: UsebStatusAnswer): IdCardCheckResult {
  if (answer.success) return 'valid';
  const code = answer.error_code;
  const verdict = VERDICTS[code];
  if (verdict) return verdict;
  if (NOT_CHECKED[code]) throw new ProviderUnavailable(`useB did not check the card: ${code} ${NOT_CHECKED[code]}`);
  if (TOKEN_REFUSED.has(code)) throw new ProviderUnavailable(`useB refused a fresh token: ${code} ${answer.message}`);
  throw new ProviderAnswerInvalid(`useB answered an unknown code: ${code} ${answer.message}`, JSON.stringify(answer));
}
