import { ApplicationFailure } from '@temporalio/common';

import { PROVIDER_REJECTED, PROVIDER_UNAVAILABLE } from '../platform/failures';

export { PROVIDER_REJECTED };

/** The provider did not answer in time, could not be reached, or failed (5xx): a retry may succeed. */
export class ProviderUnavailable extends Error {
  readonly code = 'PROVIDER_UNAVAILABLE';
  constructor(message: string, options?: { cause?: unknown }) { super(message, options); this.name = PROVIDER_UNAVAILABLE; }
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
  const parsed = text ? (JSON.parse(text) as T) : (undefined as T);
  if (response.status >= 500) throw new ProviderUnavailable(`provider ${options.baseUrl} answered ${response.status} on ${path}`);
  if (response.status >= 400) {
    throw ApplicationFailure.create({
      type: PROVIDER_REJECTED, nonRetryable: true, message: `provider rejected ${path} with ${response.status}`, details: [parsed],
    });
  }
  return { status: response.status, body: parsed };
}
