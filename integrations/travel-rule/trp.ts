import { randomUUID } from 'node:crypto';
import {
  dispatcherFor,
  http,
  ProviderAnswerInvalid,
  ProviderUnavailable,
  readCapped,
  type ProviderTls,
} from '../provider-http';
import type { Ivms101Form } from './ivms101';

/**
 * TRP v3, the OpenVASP Travel Rule Protocol, as TRISA's open-source implementation (`pkg/openvasp`) speaks it, over
 * mutual TLS with each counterpart's certificate pinned. A transfer's messages share one `request-identifier`:
 *
 * - the **inquiry** (originator -> the beneficiary's Travel Address URL): `{asset, amount, callback, IVMS101}`, the
 *   asset `{slip0044: "ETH"}` (a chain's coin, by its SLIP-0044 symbol) or `{dti: "..."}` (a token, ISO 24165), the
 *   amount a JSON number in whole units (written from the decimal text, never through a float);
 * - the **resolution**, in the inquiry's 200 answer or later at its callback: `{approved: {address, callback}}`,
 *   `{rejected: "..."}`, or `{version}` (no decision yet: it comes to the callback);
 * - the **confirmation** (originator -> the approval's callback): `{txid}` or `{canceled}`.
 *
 * Headers: `api-version` (we send 3.1.0, which TRISA requires, and accept 3.1.x and 3.2.x), `request-identifier`,
 * `api-extensions` (none used), `content-type: application/json`.
 */
export const TRP_API_VERSION = '3.1.0';
/** The versions whose messages we read: TRP 3.1 and 3.2 change discovery and add DTI, not these messages. */
export const isAcceptedTrpVersion = (version: string): boolean => /^3\.[12]\.\d{1,4}$/.test(version);

export type TrpAsset = { slip0044: string } | { dti: string };

export type TrpResolution =
  { kind: 'approved'; address: string; callback: string } | { kind: 'rejected'; reason: string } | { kind: 'pending' };

/** A VASP we exchange Travel Rule messages with (TRAVEL_RULE_COUNTERPARTS), after due diligence. */
export interface TravelRuleCounterpart {
  id: string;
  name: string;
  /** Its TRP origin (https://host[:port]): inquiries go to Travel Addresses on it, callbacks must be on it. */
  origin: string;
  /** SHA-256 fingerprints (hex) of its certificates: the one it serves and presents must be one of them. */
  pins: string[];
  /** The IVMS101 form it reads (2020 unless it asks for 2023). */
  ivms101: Ivms101Form;
}

/** The same account: EVM addresses in any case (checksum case is not part of them), others (base58) exactly. */
export const sameAccount = (a: string, b: string): boolean =>
  /^0x[0-9a-fA-F]{40}$/.test(a) && /^0x[0-9a-fA-F]{40}$/.test(b) ? a.toLowerCase() === b.toLowerCase() : a === b;

/** A resolution's JSON (ours or a counterpart's): exactly one of approved, rejected, version. */
export function parseResolution(body: unknown): TrpResolution | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { approved, rejected, version } = body as Record<string, unknown>;
  const given = [approved, rejected, version].filter((v) => v !== undefined && v !== null && v !== '').length;
  if (given !== 1) return undefined;
  if (approved !== undefined && approved !== null) {
    const { address, callback } = approved as Record<string, unknown>;
    if (typeof address !== 'string' || !address || address.length > 128) return undefined;
    if (typeof callback !== 'string' || !/^https:\/\//.test(callback) || callback.length > 2048) return undefined;
    return { kind: 'approved', address, callback };
  }
  if (typeof rejected === 'string') return { kind: 'rejected', reason: rejected.slice(0, 500) };
  return typeof version === 'string' ? { kind: 'pending' } : undefined;
}

/** The resolution we answer an inquiry with (TRISA's client reads exactly these keys and no other). */
export const resolutionBody = (
  resolution: { approved: { address: string; callback: string } } | { rejected: string },
): Record<string, unknown> => resolution;

/**
 * The originator's side of TRP over mutual TLS: our certificate presented, the counterpart's verified against the
 * Travel Rule CA and its pin. Network failures, timeouts and 5xx are ProviderUnavailable (retried); a 4xx to an
 * inquiry is the counterpart refusing it.
 */
export class TrpClient {
  private readonly tls = new Map<string, ProviderTls>();

  constructor(private readonly options: { timeoutMs: number; tls: { cert: string; key: string; ca?: string } }) {}

  /** Sends a transfer inquiry to the beneficiary VASP's Travel Address URL and reads the resolution it answers. */
  async inquiry(
    counterpart: TravelRuleCounterpart,
    url: string,
    inquiry: {
      requestIdentifier: string;
      asset: TrpAsset;
      /** Decimal text in whole units ("0.25"), written into the JSON as a number. */
      amount: string;
      callback: string;
      ivms101: Record<string, unknown>;
    },
  ): Promise<TrpResolution> {
    if (!/^\d{1,40}(\.\d{1,36})?$/.test(inquiry.amount)) throw new Error(`not a TRP amount: ${inquiry.amount}`);
    // JSON.stringify would go through a float; the amount's text is placed as the number it is.
    const marker = `"amount-${randomUUID()}"`;
    const body = JSON.stringify({
      asset: inquiry.asset,
      amount: JSON.parse(marker),
      callback: inquiry.callback,
      IVMS101: inquiry.ivms101,
    }).replace(marker, inquiry.amount);
    const answer = await this.post(counterpart, url, body, inquiry.requestIdentifier);
    // Too many requests, or too slow to read ours: not a refusal of this transfer; asked again later.
    if (answer.status === 408 || answer.status === 429)
      throw new ProviderUnavailable(`${counterpart.name} answered ${answer.status} to the inquiry`, {
        status: answer.status,
      });
    if (answer.status >= 400)
      return {
        kind: 'rejected',
        reason: `${counterpart.name} refused the inquiry (${answer.status}): ${answer.text.trim().slice(0, 300) || 'no reason given'}`,
      };
    if (!answer.text.trim()) return { kind: 'pending' };
    let parsed: unknown;
    try {
      parsed = JSON.parse(answer.text);
    } catch {
      throw new ProviderAnswerInvalid(
        `${counterpart.name} answered the inquiry with text that is not JSON`,
        answer.text,
      );
    }
    const resolution = parseResolution(parsed);
    if (!resolution)
      throw new ProviderAnswerInvalid(
        `${counterpart.name} answered the inquiry with something other than a TRP resolution`,
        answer.text,
      );
    return resolution;
  }

  /** The transfer confirmation (`{txid}` or `{canceled}`) to the callback the approval named. */
  async confirm(
    counterpart: TravelRuleCounterpart,
    callback: string,
    confirmation: { requestIdentifier: string } & ({ txid: string } | { canceled: string }),
  ): Promise<{ status: number }> {
    const { requestIdentifier, ...body } = confirmation;
    const answer = await this.post(counterpart, callback, JSON.stringify(body), requestIdentifier);
    if (answer.status >= 400)
      throw new ProviderAnswerInvalid(
        `${counterpart.name} refused the confirmation (${answer.status}): ${answer.text.trim().slice(0, 200)}`,
        answer.text,
      );
    return { status: answer.status };
  }

  /** A resolution sent later, to the callback the originator's inquiry named. */
  async resolve(
    counterpart: TravelRuleCounterpart,
    callback: string,
    requestIdentifier: string,
    resolution: { approved: { address: string; callback: string } } | { rejected: string },
  ): Promise<void> {
    const answer = await this.post(counterpart, callback, JSON.stringify(resolution), requestIdentifier);
    if (answer.status >= 400)
      throw new ProviderAnswerInvalid(
        `${counterpart.name} refused the resolution (${answer.status}): ${answer.text.trim().slice(0, 200)}`,
        answer.text,
      );
  }

  private tlsFor(counterpart: TravelRuleCounterpart): ProviderTls {
    // One connection pool per counterpart and pins: a connection made under other pins is never reused.
    const key = `${counterpart.id} ${counterpart.pins.join(',')}`;
    let tls = this.tls.get(key);
    if (!tls) this.tls.set(key, (tls = { ...this.options.tls, pins: counterpart.pins }));
    return tls;
  }

  private async post(
    counterpart: TravelRuleCounterpart,
    url: string,
    body: string,
    requestIdentifier: string,
  ): Promise<{ status: number; text: string }> {
    if (new URL(url).origin !== counterpart.origin)
      throw new Error(`${url} is not on ${counterpart.name}'s TRP origin ${counterpart.origin}`);
    const what = `${counterpart.name} (TRP) at ${new URL(url).pathname}`;
    try {
      const { fetch } = await http();
      const response = await fetch(url, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          'content-type': 'application/json; charset=utf-8',
          accept: 'application/json',
          'api-version': TRP_API_VERSION,
          'request-identifier': requestIdentifier,
        },
        body,
        signal: AbortSignal.timeout(this.options.timeoutMs),
        dispatcher: await dispatcherFor(this.tlsFor(counterpart)),
      });
      if (response.status >= 300 && response.status < 400) {
        await response.body?.cancel();
        throw new ProviderAnswerInvalid(`${what}: answered ${response.status}; redirects are not followed`, '');
      }
      const text = await readCapped(response, 64 * 1024, what);
      if (response.status >= 500)
        throw new ProviderUnavailable(`${what} answered ${response.status}`, { status: response.status });
      return { status: response.status, text };
    } catch (error) {
      if (error instanceof ProviderUnavailable) throw error;
      const cause = (error as Error & { cause?: Error }).cause;
      throw new ProviderUnavailable(
        `${what} did not answer: ${(error as Error).message}${cause?.message ? ` (${cause.message})` : ''}`,
        { cause: error },
      );
    }
  }
}
