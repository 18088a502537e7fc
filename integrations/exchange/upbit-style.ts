import { createHash, randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { Type } from '@sinclair/typebox';
import { PROVIDER_REJECTED } from '../../platform/failures';
import type { ProviderTransport } from '../../platform/provider-settings';
import { ProviderUnavailable, expectAnswer, requestProvider, type ProviderHttpOptions } from '../provider-http';
import type { ExchangeAccounts, ExchangeBalance, ExchangeKeyPair, ExchangeName } from './accounts';

/**
 * Upbit's Exchange API (https://docs.upbit.com/kr/reference/auth) and Bithumb's, which copies it
 * (https://apidocs.bithumb.com/docs/인증-토큰-생성하기): every private call carries `Authorization: Bearer <JWT>`, a JWT
 * signed with the secret key as it is (raw UTF-8, not base64-decoded) over `{access_key, nonce (a UUID, never
 * reused), [timestamp (ms): Bithumb], [query_hash: SHA-512 hex of the query string unencoded, query_hash_alg:
 * "SHA512"]}`: HS512 at Upbit (its reference's example), HS256 at Bithumb (its docs). Balances from `GET /v1/accounts`
 * (`[{currency, balance, locked, avg_buy_price, avg_buy_price_modified, unit_currency}]`, numbers as strings; held =
 * balance + locked). Errors `{"error": {"name", "message"}}`, read by name (statuses differ across Upbit's pages).
 */

/** The string hashed into query_hash: `k=v&k=v` in the order sent, arrays as repeated `k[]=v`, nothing encoded. */
export function queryHashInput(params: Record<string, string | number | Array<string | number>>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(params)) {
    if (Array.isArray(value)) for (const item of value) parts.push(`${key}[]=${item}`);
    else parts.push(`${key}=${value}`);
  }
  return parts.join('&');
}

export interface ExchangeJwtOptions {
  algorithm: 'HS512' | 'HS256';
  /** Bithumb's `timestamp` claim (ms since the epoch). */
  timestamp?: number;
  nonce?: string;
  /** The request's query string, unencoded (queryHashInput); none for a call without parameters. */
  query?: string;
}

/** The JWT of one private call. */
export async function exchangeJwt(keys: ExchangeKeyPair, options: ExchangeJwtOptions): Promise<string> {
  const payload: Record<string, string | number> = { access_key: keys.accessKey, nonce: options.nonce ?? randomUUID() };
  if (options.timestamp !== undefined) payload.timestamp = options.timestamp;
  if (options.query) {
    payload.query_hash = createHash('sha512').update(options.query, 'utf8').digest('hex');
    payload.query_hash_alg = 'SHA512';
  }
  // jose, loaded by the first private call (a worker that never calls an exchange does not hold it: issue 52).
  const { SignJWT } = await import('jose');
  return new SignJWT(payload)
    .setProtectedHeader({ alg: options.algorithm, typ: 'JWT' })
    .sign(new TextEncoder().encode(keys.secretKey));
}

const Decimal = Type.String({ pattern: '^\\d+(\\.\\d+)?$' });
export const AccountsAnswer = Type.Array(
  Type.Object({
    currency: Type.String({ pattern: '^[A-Z0-9]{1,16}$' }),
    balance: Decimal,
    locked: Decimal,
    avg_buy_price: Decimal,
    avg_buy_price_modified: Type.Boolean(),
    unit_currency: Type.String(),
  }),
  { maxItems: 1000 },
);
const ErrorAnswer = Type.Object({
  error: Type.Object({ name: Type.Union([Type.String(), Type.Number()]), message: Type.Optional(Type.String()) }),
});

/** The sum of two decimal strings, exactly. */
export function addDecimals(a: string, b: string): string {
  const scale = Math.max(a.split('.')[1]?.length ?? 0, b.split('.')[1]?.length ?? 0);
  const units = (x: string) => BigInt((x.split('.')[0] ?? '0') + (x.split('.')[1] ?? '').padEnd(scale, '0'));
  const total = (units(a) + units(b)).toString().padStart(scale + 1, '0');
  const whole = total.slice(0, total.length - scale);
  const fraction = scale ? total.slice(total.length - scale).replace(/0+$/, '') : '';
  return fraction ? `${whole}.${fraction}` : whole;
}

export class UpbitStyleExchange implements ExchangeAccounts {
  private readonly http: ProviderHttpOptions;

  constructor(
    readonly exchange: ExchangeName,
    private readonly options: {
      apiUrl: string;
      transport: ProviderTransport;
      algorithm: 'HS512' | 'HS256';
      /** Bithumb: a timestamp claim. */
      timestamp: boolean;
      now?: () => number;
    },
  ) {
    this.http = {
      baseUrl: options.apiUrl,
      timeoutMs: options.transport.timeoutMs,
      tls: options.transport.tls,
      maxAnswerBytes: 512 * 1024,
    };
  }

  async balances(keys: ExchangeKeyPair): Promise<ExchangeBalance[]> {
    const token = await exchangeJwt(keys, {
      algorithm: this.options.algorithm,
      timestamp: this.options.timestamp ? (this.options.now ?? Date.now)() : undefined,
    });
    const { status, body } = await requestProvider<unknown>(this.http, 'GET', '/v1/accounts', undefined, {
      authorization: `Bearer ${token}`,
    });
    if (status === 429 || status === 418)
      throw new ProviderUnavailable(`${this.exchange} limits our calls (${status})`, { status });
    if (status >= 400) {
      const { error } = expectAnswer(ErrorAnswer, body, `${this.exchange}'s refusal`);
      throw ApplicationFailure.create({
        type: PROVIDER_REJECTED,
        nonRetryable: true,
        message: `${this.exchange} refused the key (${status} ${error.name})`,
        details: [{ name: String(error.name), message: error.message ?? '' }, status],
      });
    }
    return expectAnswer(AccountsAnswer, body, `${this.exchange}'s balances`).map((row) => ({
      currency: row.currency,
      balance: addDecimals(row.balance, row.locked),
    }));
  }
}
