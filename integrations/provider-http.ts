import { ApplicationFailure } from '@temporalio/common';
import Ajv, { type ValidateFunction } from 'ajv';
import type { Static, TSchema } from '@sinclair/typebox';

import { PROVIDER_REJECTED, PROVIDER_UNAVAILABLE } from '../platform/failures';

export { PROVIDER_REJECTED };

/** The provider did not answer in time, could not be reached, or failed (5xx): a retry may succeed. */
export class ProviderUnavailable extends Error {
  readonly code = 'PROVIDER_UNAVAILABLE';
  constructor(message: string, options?: { cause?: unknown }) { super(message, options); this.name = PROVIDER_UNAVAILABLE; }
}

/**
 * The provider answered, but not in the form its API promises (not JSON, or not matching the schema the caller
 * expects). Handled like an outage (a retry may get a good answer; the API answers 503); a caller for which a wrong
 * answer must never be taken as a result (a bank settlement) catches it and treats the outcome as unknown.
 */
export class ProviderAnswerInvalid extends ProviderUnavailable {
  constructor(message: string, readonly answer: string) { super(message); }
}

const ajv = new Ajv({ allErrors: true, strict: false });
const validators = new WeakMap<TSchema, ValidateFunction>();

/** Checks a provider's answer against the schema of its API; a mismatch is ProviderAnswerInvalid naming the fields. */
export function expectAnswer<S extends TSchema>(schema: S, body: unknown, what: string): Static<S> {
  let validate = validators.get(schema);
  if (!validate) validators.set(schema, (validate = ajv.compile(schema)));
  if (validate(body)) return body as Static<S>;
  const problems = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`).join('; ');
  throw new ProviderAnswerInvalid(`unexpected answer to ${what}: ${problems}`, JSON.stringify(body)?.slice(0, 500) ?? 'undefined');
}

export interface ProviderHttpOptions { baseUrl: string; timeoutMs: number; headers?: Record<string, string> }

/**
 * JSON over HTTP to a third-party provider with a deadline. Network errors, timeouts and 5xx are thrown as plain
 * errors (Temporal retries them); 4xx become a non-retryable ApplicationFailure carrying the provider's answer.
 */
export async function callProvider<T>(
  options: ProviderHttpOptions, method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {},
): Promise<{ status: number; body: T }> {
  let response: Response;
  let text: string;
  try {
    response = await fetch(new URL(path, options.baseUrl), {
      method,
      headers: { 'content-type': 'application/json', accept: 'application/json', ...options.headers, ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    text = await response.text();
  } catch (error) {
    throw new ProviderUnavailable(`provider ${options.baseUrl} did not answer ${path}: ${(error as Error).message}`, { cause: error });
  }
  let parsed: T;
  try {
    parsed = text ? (JSON.parse(text) as T) : (undefined as T);
  } catch {
    if (response.status >= 500) throw new ProviderUnavailable(`provider ${options.baseUrl} answered ${response.status} on ${path}`);
    throw new ProviderAnswerInvalid(`provider ${options.baseUrl} answered ${path} with ${response.status} and a body that is not JSON`, text.slice(0, 500));
  }
  if (response.status >= 500) throw new ProviderUnavailable(`provider ${options.baseUrl} answered ${response.status} on ${path}`);
  if (response.status >= 400) {
    throw ApplicationFailure.create({
      type: PROVIDER_REJECTED, nonRetryable: true, message: `provider rejected ${path} with ${response.status}`, details: [parsed],
    });
  }
  return { status: response.status, body: parsed };
}
