import { ApplicationFailure } from '@temporalio/common';
import { checkServerIdentity, type PeerCertificate } from 'node:tls';
import type { Agent, Response } from 'undici';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { Static, TSchema } from '@sinclair/typebox';

import { PROVIDER_ANSWER_INVALID, PROVIDER_REJECTED, PROVIDER_UNAVAILABLE } from '../platform/failures';

export { PROVIDER_REJECTED };

/** The provider did not answer in time, could not be reached, or failed (5xx): a retry may succeed. */
export class ProviderUnavailable extends Error {
  readonly code = 'PROVIDER_UNAVAILABLE';
  /** The provider's status when it answered (a 5xx), undefined when it did not answer at all (timeout, network). */
  readonly status?: number;
  constructor(message: string, options?: { cause?: unknown; status?: number }) {
    super(message, options);
    this.name = PROVIDER_UNAVAILABLE;
    this.status = options?.status;
  }
}

/**
 * The provider answered, but not in the form its API promises (not JSON, or not matching the schema the caller
 * expects). Handled like an outage (a retry may get a good answer; the API answers 503); a caller for which a wrong
 * answer must never be taken as a result (a bank settlement) catches it and treats the outcome as unknown.
 */
export class ProviderAnswerInvalid extends ProviderUnavailable {
  /**
   * What came back, as its shape only (keys and the types of their values): answers carry personal data (resident
   * numbers, names) and secrets (tokens), and this error is logged wherever it surfaces.
   */
  readonly answer: string;
  constructor(message: string, answer: string) {
    super(message);
    this.name = PROVIDER_ANSWER_INVALID;
    this.answer = shapeOf(answer);
  }
}

/** A JSON text's shape (`{"a":"string","b":[{"c":"number"}]}`), or its length when it is not JSON. */
function shapeOf(text: string): string {
  const shape = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.slice(0, 1).map(shape)
      : value !== null && typeof value === 'object'
        ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k.slice(0, 64), shape(v)]))
        : value === null
          ? 'null'
          : typeof value;
  try {
    return JSON.stringify(shape(JSON.parse(text))).slice(0, 500);
  } catch {
    return `(${text.length} characters, not JSON)`;
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

/**
 * Mutual TLS with a provider (PEM text): our client certificate and its key, presented when the provider asks, and the
 * CA that must have signed the provider's certificate (replacing the system's roots, so a provider reached over a
 * private CA is pinned to it). Built from settings by platform/provider-settings.ts.
 */
export interface ProviderTls {
  cert?: string;
  key?: string;
  ca?: string;
  /**
   * The SHA-256 fingerprints (hex, any case, colons allowed) one of which the provider's own certificate must have,
   * besides chaining to `ca`: a counterpart pinned (a Travel Rule VASP), so another holder of a certificate of the
   * same CA cannot stand in for it.
   */
  pins?: string[];
}

/** A certificate fingerprint as we compare it: hex, lower case, no colons. */
export const fingerprintHex = (fingerprint: string): string => fingerprint.replace(/:/g, '').toLowerCase();

/** `maxAnswerBytes`: the largest answer read (default 1 MiB); a longer one is ProviderAnswerInvalid, read no further. */
export interface ProviderHttpOptions {
  baseUrl: string;
  timeoutMs: number;
  headers?: Record<string, string>;
  maxAnswerBytes?: number;
  tls?: ProviderTls;
  /**
   * Answer a 5xx's JSON body too, for the caller to read its code (KIS's gateway answers an expired token or a rate
   * limit as a 500 with a code): a 5xx without a JSON body is still ProviderUnavailable.
   */
  readServerErrors?: boolean;
}

let undici: Promise<typeof import('undici')> | undefined;
/**
 * undici (its fetch and connection pools), loaded by the first call to a provider: a process that has not called one
 * yet (a worker at rest, an api serving reads) does not hold it (issue 52). Node's own fetch would be a second copy.
 */
export const http = (): Promise<typeof import('undici')> => (undici ??= import('undici'));

/** One connection pool per TLS identity (an adapter builds its options once): certificates are parsed once. */
const tlsAgents = new WeakMap<ProviderTls, Agent>();
export const dispatcherFor = async (tls: ProviderTls | undefined): Promise<Agent | undefined> => {
  if (!tls || (!tls.cert && !tls.ca && !tls.pins)) return undefined;
  let agent = tlsAgents.get(tls);
  if (!agent) {
    const pins = tls.pins?.map(fingerprintHex);
    const { Agent } = await http();
    agent = new Agent({
      connect: {
        cert: tls.cert,
        key: tls.key,
        ca: tls.ca,
        ...(pins
          ? {
              checkServerIdentity: (host: string, peer: PeerCertificate) =>
                checkServerIdentity(host, peer) ??
                (pins.includes(fingerprintHex(peer.fingerprint256))
                  ? undefined
                  : new Error(`the certificate of ${host} is not the one pinned for it`)),
            }
          : {}),
      },
    });
    tlsAgents.set(tls, agent);
  }
  return agent;
};

const DEFAULT_MAX_ANSWER_BYTES = 1024 * 1024;

/** Reads at most `limit` bytes of the answer's body; more is refused without reading it all (a hostile provider). */
export async function readCapped(response: Response, limit: number, what: string): Promise<string> {
  return readCappedBody(
    response.headers.get('content-length'),
    response.body,
    () => response.body?.cancel(),
    limit,
    what,
  );
}

/**
 * readCapped for any body read as chunks (a fetch Response's stream, undici `request`'s): `declared` is its
 * content-length, `discard` drops a body refused unread. Leaving the loop early (too long) cancels the body.
 */
async function readCappedBody(
  declared: string | null | undefined,
  body: AsyncIterable<Uint8Array> | null | undefined,
  discard: () => unknown,
  limit: number,
  what: string,
): Promise<string> {
  const length = Number(declared);
  if (declared && Number.isFinite(length) && length > limit) {
    await discard();
    throw new ProviderAnswerInvalid(`${what}: an answer of ${length} bytes, more than the ${limit} read`, '');
  }
  if (!body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > limit) throw new ProviderAnswerInvalid(`${what}: the answer runs past the ${limit} bytes read`, '');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A path under the provider's base URL (which may have a path of its own), or an absolute URL as it is. */
export const providerUrl = (baseUrl: string, path: string): string =>
  /^https?:\/\//.test(path)
    ? path
    : `${baseUrl.replace(/\/+$/, '')}${path.startsWith('/') || !path ? path : `/${path}`}`;

/**
 * JSON over HTTP to a third-party provider with a deadline (a form body when `body` is URLSearchParams), answering
 * the status and the parsed body of any answer below 500. Redirects are never followed (a compromised provider could
 * send the request, its body and headers such as an API key to an internal address): a 3xx is ProviderAnswerInvalid,
 * as is an answer longer than `maxAnswerBytes` or one that is not JSON. Network errors, timeouts and 5xx are
 * ProviderUnavailable (Temporal retries them). For providers whose refusals carry codes to read (4xx bodies).
 */
export async function requestProvider<T>(
  options: ProviderHttpOptions,
  method: 'GET' | 'POST' | 'PUT',
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: T; headers: AnswerHeaders }> {
  const form = body instanceof URLSearchParams;
  // Messages name the path without its query: a query can carry an account number (KIS's CANO).
  const where = path.split('?')[0]!;
  const what = `provider ${options.baseUrl} on ${where}`;
  let status: number;
  let rawHeaders: Record<string, string | string[] | undefined>;
  let text: string;
  try {
    // undici's `request`, not its fetch: the same connection pools at about a third of the CPU per call (fetch's
    // WHATWG machinery: a bundler call cost the worker 0.4-0.6 ms through fetch, 0.2 through request; bench/NOTES.md
    // step 14). It never follows a redirect, and asks for an answer not compressed (fetch decompressed).
    const { request } = await http();
    const answer = await request(providerUrl(options.baseUrl, path), {
      method,
      headers: {
        'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json',
        accept: 'application/json',
        // What fetch sent: a provider that refuses requests without a user agent sees the same one.
        'user-agent': 'undici',
        // Read as sent: an answer compressed all the same is refused (below), never taken for a garbled one.
        'accept-encoding': 'identity',
        ...options.headers,
        ...headers,
      },
      body: body === undefined ? undefined : form ? body.toString() : JSON.stringify(body),
      signal: AbortSignal.timeout(options.timeoutMs),
      dispatcher: await dispatcherFor(options.tls),
    });
    status = answer.statusCode;
    rawHeaders = answer.headers;
    // A body refused unread: the connection is closed (destroying the body reports an abort, expected here).
    const discard = () => answer.body.on('error', () => undefined).destroy();
    if (status >= 300 && status < 400) {
      discard();
      throw new ProviderAnswerInvalid(
        `${what}: answered ${status} (a redirect${rawHeaders.location ? ' elsewhere' : ''}); redirects are not followed`,
        '',
      );
    }
    const encoding = headerValue(rawHeaders, 'content-encoding');
    if (encoding && encoding.toLowerCase() !== 'identity') {
      discard();
      throw new ProviderAnswerInvalid(`${what}: answered ${status} encoded ${encoding}, which was not asked for`, '');
    }
    text = await readCappedBody(
      headerValue(rawHeaders, 'content-length'),
      answer.body,
      discard,
      options.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES,
      what,
    );
  } catch (error) {
    if (error instanceof ProviderAnswerInvalid) throw error;
    throw new ProviderUnavailable(`provider ${options.baseUrl} did not answer ${where}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const unavailable = () =>
    new ProviderUnavailable(`provider ${options.baseUrl} answered ${status} on ${where}`, {
      status: status,
    });
  if (status >= 500 && !options.readServerErrors) throw unavailable();
  try {
    return {
      status: status,
      body: text ? (JSON.parse(text) as T) : (undefined as T),
      headers: answerHeaders(rawHeaders),
    };
  } catch {
    if (status >= 500) throw unavailable();
    throw new ProviderAnswerInvalid(
      `provider ${options.baseUrl} answered ${where} with ${status} and a body that is not JSON`,
      text.slice(0, 500),
    );
  }
}

/** One header of undici `request`'s answer (a repeated one joined as fetch joins it). */
const headerValue = (raw: Record<string, string | string[] | undefined>, name: string): string | null => {
  const value = raw[name];
  return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
};

/** An answer's headers, read as fetch's are: `get` by any case, a repeated one joined. */
export type AnswerHeaders = Pick<Headers, 'get'>;
const answerHeaders = (raw: Record<string, string | string[] | undefined>): AnswerHeaders => ({
  get: (name: string) => headerValue(raw, name.toLowerCase()),
});

/**
 * requestProvider for providers whose 4xx is a refusal of the request: a 4xx becomes a non-retryable
 * ApplicationFailure (PROVIDER_REJECTED) carrying the provider's answer and its status.
 */
export async function callProvider<T>(
  options: ProviderHttpOptions,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: T }> {
  const answer = await requestProvider<T>(options, method, path, body, headers);
  if (answer.status >= 400) {
    throw ApplicationFailure.create({
      type: PROVIDER_REJECTED,
      nonRetryable: true,
      message: `provider rejected ${path} with ${answer.status}`,
      // The answer, then its status (a caller that must tell a refusal of the request from one of the client can).
      details: [answer.body, answer.status],
    });
  }
  return answer;
}
