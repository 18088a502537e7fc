import { ApplicationFailure } from '@temporalio/common';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { Static, TSchema } from '@sinclair/typebox';

import { PROVIDER_ANSWER_INVALID, PROVIDER_REJECTED, PROVIDER_UNAVAILABLE } from '../platform/failures';

export { PROVIDER_REJECTED };

/** The provider did not answer in time, could not be reached, or failed (5xx): a retry may succeed. */
export class ProviderUnavailable extends Error {
  readonly code = 'PROVIDER_UNAVAILABLE';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = PROVIDER_UNAVAILABLE;
  }
}

/**
 * The provider answered, but not in the form its API promises (not JSON, or not matching the schema the caller
 * expects). Handled like an outage (a retry may get a good answer; the API answers 503); a caller for which a wrong
 * answer must never be taken as a result (a bank settlement) catches it and treats the outcome as unknown.
 */
export class ProviderAnswerInvalid extends ProviderUnavailable {
  constructor(
    message: string,
    readonly answer: string,
  ) {
    super(message);
    this.name = PROVIDER_ANSWER_INVALID;
  }
}

const ajv = addFormats(new Ajv({ allErrors: true, strict: false }));
const validators = new WeakMap<TSchema, ValidateFunction>();

/** Checks a provider's answer against the schema of its API; a mismatch is ProviderAnswerInvalid naming the fields. */
export function expectAnswer<S extends TSchema>(schema: S, body: unknown, what: string): Static<S> {
  let validate = validators.get(schema);
  if (!validate) validators.set(schema, (validate = ajv.compile(schema)));
  if (validate(body)) return body as Static<S>;
  const problems = (validate.errors ?? [])
    .map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`)
    .join('; ');
  throw new ProviderAnswerInvalid(
    `unexpected answer to ${what}: ${problems}`,
    JSON.stringify(body)?.slice(0, 500) ?? 'undefined',
  );
}

/** `maxAnswerBytes`: the largest answer read (default 1 MiB); a longer one is ProviderAnswerInvalid, read no further. */
export interface ProviderHttpOptions {
  baseUrl: string;
  timeoutMs: number;
  headers?: Record<string, string>;
  maxAnswerBytes?: number;
}

const DEFAULT_MAX_ANSWER_BYTES = 1024 * 1024;

/** Reads at most `limit` bytes of the answer's body; more is refused without reading it all (a hostile provider). */
async function readCapped(response: Response, limit: number, what: string): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) {
    await response.body?.cancel();
    throw new ProviderAnswerInvalid(`${what}: an answer of ${declared} bytes, more than the ${limit} read`, '');
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw new ProviderAnswerInvalid(`${what}: the answer runs past the ${limit} bytes read`, '');
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * JSON over HTTP to a third-party provider with a deadline (a form body when `body` is URLSearchParams). Redirects are
 * never followed (a compromised provider could send the request, its body and headers such as an API key to an
 * internal address): a 3xx is ProviderAnswerInvalid, as is an answer longer than `maxAnswerBytes`. Network errors,
 * timeouts and 5xx are thrown as plain errors (Temporal retries them); 4xx become a non-retryable ApplicationFailure
 * carrying the provider's answer.
 */
export async function callProvider<T>(
  options: ProviderHttpOptions,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: T }> {
  const form = body instanceof URLSearchParams;
  const what = `provider ${options.baseUrl} on ${path}`;
  let response: Response;
  let text: string;
  try {
    response = await fetch(new URL(path, options.baseUrl), {
      method,
      redirect: 'manual',
      headers: {
        'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json',
        accept: 'application/json',
        ...options.headers,
        ...headers,
      },
      body: body === undefined ? undefined : form ? body : JSON.stringify(body),
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      throw new ProviderAnswerInvalid(
        `${what}: answered ${response.status} (a redirect${response.headers.get('location') ? ' elsewhere' : ''}); redirects are not followed`,
        '',
      );
    }
    text = await readCapped(response, options.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES, what);
  } catch (error) {
    if (error instanceof ProviderAnswerInvalid) throw error;
    throw new ProviderUnavailable(`provider ${options.baseUrl} did not answer ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  let parsed: T;
  try {
    parsed = text ? (JSON.parse(text) as T) : (undefined as T);
  } catch {
    if (response.status >= 500)
      throw new ProviderUnavailable(`provider ${options.baseUrl} answered ${response.status} on ${path}`);
    throw new ProviderAnswerInvalid(
      `provider ${options.baseUrl} answered ${path} with ${response.status} and a body that is not JSON`,
      text.slice(0, 500),
    );
  }
  if (response.status >= 500)
    throw new ProviderUnavailable(`provider ${options.baseUrl} answered ${response.status} on ${path}`);
  if (response.status >= 400) {
    throw ApplicationFailure.create({
      type: PROVIDER_REJECTED,
      nonRetryable: true,
      message: `provider rejected ${path} with ${response.status}`,
      // The answer, then its status (a caller that must tell a refusal of the request from one of the client can).
      details: [parsed, response.status],
    });
  }
  return { status: response.status, body: parsed };
}
