import { createHash } from 'node:crypto';
import { SaxesParser } from 'saxes';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Type } from '@sinclair/typebox';
import {
  callProvider,
  expectAnswer,
  ProviderAnswerInvalid,
  ProviderUnavailable,
  type ProviderHttpOptions,
} from './provider-http';

/** The SDN list's source name in the database, and the programme a hit on it discloses. */
export const OFAC_SDN = { source: 'ofac-sdn', programme: 'OFAC SDN' } as const;

/** How an address is compared: EVM case-insensitively (the checksum case is not part of the address), others as listed. */
export const addressKey = (address: string): string => {
  const trimmed = address.trim();
  return /^0x[0-9a-fA-F]{40}$/.test(trimmed) ? trimmed.toLowerCase() : trimmed;
};

export interface SanctionsListRead {
  /** The list's DateOfIssue (YYYY-MM-DD). */
  listDate: string;
  /** Every "Digital Currency Address - <asset>" of the list: address key -> asset tags. */
  addresses: Map<string, Set<string>>;
  sha256: string;
  bytes: number;
}

const FEATURE_PREFIX = 'Digital Currency Address - ';

/**
 * Reads the SDN advanced XML as it streams (the Treasury's file is over 100 MB): the FeatureType reference values that
 * name digital currency addresses, every Feature of those types (its VersionDetail is the address) and DateOfIssue.
 * No DTD or entity is expanded (saxes reads none). A file with no date or no address is refused, never stored: a
 * broken download must not empty the list.
 */
export async function readSdnAdvancedXml(
  chunks: AsyncIterable<Uint8Array>,
  onProgress?: (bytes: number) => void,
): Promise<SanctionsListRead> {
  const parser = new SaxesParser({ xmlns: false });
  const path: string[] = [];
  const featureTypes = new Map<string, string>();
  const found: Array<{ typeId: string; address: string }> = [];
  const date: Record<string, string> = {};
  let featureTypeId: string | undefined;
  let currentFeatureType: string | undefined;
  let text = '';
  let error: Error | undefined;
  const local = (name: string) => name.slice(name.indexOf(':') + 1);

  parser.on('opentag', (tag) => {
    const name = local(tag.name);
    path.push(name);
    text = '';
    if (name === 'FeatureType') currentFeatureType = String(tag.attributes.ID ?? '');
    if (name === 'Feature') featureTypeId = String(tag.attributes.FeatureTypeID ?? '');
  });
  parser.on('text', (t) => {
    text += t;
  });
  parser.on('closetag', (tag) => {
    const name = local(tag.name);
    path.pop();
    const value = text.trim();
    if (name === 'FeatureType' && currentFeatureType && value.startsWith(FEATURE_PREFIX))
      featureTypes.set(currentFeatureType, value.slice(FEATURE_PREFIX.length).trim());
    if (name === 'VersionDetail' && featureTypeId && path.includes('Feature') && value)
      found.push({ typeId: featureTypeId, address: value });
    if (name === 'Feature') featureTypeId = undefined;
    if ((name === 'Year' || name === 'Month' || name === 'Day') && path[path.length - 1] === 'DateOfIssue')
      date[name] = value;
    text = '';
  });
  parser.on('error', (e) => {
    error ??= e;
  });

  const hash = createHash('sha256');
  const decoder = new TextDecoder('utf-8');
  let bytes = 0;
  for await (const chunk of chunks) {
    hash.update(chunk);
    bytes += chunk.byteLength;
    onProgress?.(bytes);
    parser.write(decoder.decode(chunk, { stream: true }));
    if (error) throw new ProviderAnswerInvalid(`the SDN list is not well-formed XML: ${error.message}`, '');
  }
  parser.write(decoder.decode());
  parser.close();
  if (error) throw new ProviderAnswerInvalid(`the SDN list is not well-formed XML: ${(error as Error).message}`, '');

  const addresses = new Map<string, Set<string>>();
  for (const { typeId, address } of found) {
    const asset = featureTypes.get(typeId);
    if (!asset) continue;
    const key = addressKey(address);
    if (!addresses.has(key)) addresses.set(key, new Set());
    addresses.get(key)!.add(asset);
  }
  if (!date.Year || !date.Month || !date.Day)
    throw new ProviderAnswerInvalid('the SDN list states no DateOfIssue: not the SDN advanced XML?', '');
  if (!addresses.size)
    throw new ProviderAnswerInvalid('the SDN list holds no digital currency address: not the SDN advanced XML?', '');
  const listDate = `${date.Year.padStart(4, '0')}-${date.Month.padStart(2, '0')}-${date.Day.padStart(2, '0')}`;
  return { listDate, addresses, sha256: hash.digest('hex'), bytes };
}

/**
 * Downloads the SDN advanced XML and reads it as it arrives. Redirects are refused (the list's address is configured),
 * as is a file larger than `maxBytes`; a download that takes longer than `timeoutMs` is ProviderUnavailable.
 */
export class SdnListClient {
  constructor(private readonly options: { url: string; timeoutMs: number; maxBytes: number }) {}

  get url(): string {
    return this.options.url;
  }

  async read(onProgress?: (bytes: number) => void): Promise<SanctionsListRead> {
    const { url, timeoutMs, maxBytes } = this.options;
    // The whole download within timeoutMs: the signal ends the request and the body's stream alike.
    const signal = AbortSignal.timeout(timeoutMs);
    let response: IncomingMessage;
    try {
      // Node's own HTTP client, not undici's (every other provider's): a public file, fetched once in a while by a
      // worker that may be at rest otherwise, where undici would stay loaded for nothing (about 20 MiB, issue 52).
      response = await new Promise<IncomingMessage>((resolve, reject) => {
        const target = new URL(url);
        const send = { 'https:': httpsRequest, 'http:': httpRequest }[target.protocol];
        if (!send) throw new Error(`${target.protocol} is neither http: nor https:`);
        const request = send(target, { headers: { accept: 'application/xml, text/xml' }, signal }, resolve);
        request.once('error', reject);
        request.end();
      });
    } catch (error) {
      throw new ProviderUnavailable(`the SDN list at ${url} could not be fetched: ${(error as Error).message}`, {
        cause: error,
      });
    }
    const status = response.statusCode ?? 0;
    if (status < 200 || status >= 300) response.destroy();
    if (status >= 300 && status < 400)
      throw new ProviderAnswerInvalid(`the SDN list at ${url} answered a redirect (${status}), not followed`, '');
    if (status < 200 || status >= 300) throw new ProviderUnavailable(`the SDN list at ${url} answered HTTP ${status}`);
    const body = response;
    async function* capped(): AsyncIterable<Uint8Array> {
      let size = 0;
      for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
        size += chunk.byteLength;
        if (size > maxBytes)
          throw new ProviderAnswerInvalid(`the SDN list at ${url} runs past the ${maxBytes} bytes read`, '');
        yield chunk;
      }
    }
    try {
      return await readSdnAdvancedXml(capped(), onProgress);
    } catch (error) {
      if (error instanceof ProviderUnavailable) throw error;
      throw new ProviderUnavailable(`the SDN list at ${url} could not be read: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
}

const Identifications = Type.Object({
  identifications: Type.Array(
    Type.Object({
      category: Type.String(),
      name: Type.Optional(Type.String()),
      description: Type.Optional(Type.String()),
      url: Type.Optional(Type.String()),
    }),
  ),
});

/** What the screening provider says of an address: no identification, or the categories it names. */
export type ProviderScreening = { listed: false } | { listed: true; categories: string[] };

/**
 * HTTP client of a sanctions screening provider with the shape of Chainalysis' free sanctions API:
 * `GET /api/v1/address/{address}` with `X-API-Key`, answering `{"identifications": [{category, name, description, url}]}`
 * (empty when the address is not sanctioned). A slow or failing provider is ProviderUnavailable after `timeoutMs`.
 */
export class SanctionsProviderClient {
  private readonly http: ProviderHttpOptions;

  constructor(options: { baseUrl: string; apiKey: string; timeoutMs: number }) {
    this.http = {
      baseUrl: options.baseUrl,
      timeoutMs: options.timeoutMs,
      headers: { 'x-api-key': options.apiKey },
      maxAnswerBytes: 64 * 1024,
    };
  }

  async screen(address: string): Promise<ProviderScreening> {
    const { body } = await callProvider<unknown>(this.http, 'GET', `/api/v1/address/${encodeURIComponent(address)}`);
    const { identifications } = expectAnswer(Identifications, body, 'a sanctions screening');
    return identifications.length
      ? { listed: true, categories: [...new Set(identifications.map((i) => i.category))] }
      : { listed: false };
  }
}

/** Why screening could not answer: no list read yet, a list older than allowed, or the provider did not answer. */
export class ScreeningUnavailable extends ProviderUnavailable {
  constructor(
    message: string,
    readonly reason: 'list-missing' | 'list-stale' | 'provider',
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export type ScreeningResult = { listed: false } | { listed: true; source: string; programme: string };

export interface SanctionsListState {
  listDate: string;
  refreshedAt: Date;
  addressCount: number;
}

/** The stored list's state (null: none read yet) and the asset tags it lists an address key under (null: not listed). */
export interface ScreeningRead {
  state: SanctionsListState | null;
  assets: string[] | null;
}

/**
 * Screens an address: the stored SDN list first (a hit needs no provider), then the provider when one is configured.
 * Fails closed: no list, a list not refreshed within `maxListAgeMs`, or a provider that does not answer within its
 * timeout is ScreeningUnavailable, never "not listed".
 */
export class SanctionsScreening {
  constructor(
    private readonly deps: {
      /** The list's state and the address key's entry, read together. */
      read(key: string): Promise<ScreeningRead>;
      provider?: Pick<SanctionsProviderClient, 'screen'>;
      maxListAgeMs: number;
      now?: () => number;
    },
  ) {}

  async screen(address: string): Promise<ScreeningResult> {
    const { state, assets } = await this.deps.read(addressKey(address));
    if (!state) throw new ScreeningUnavailable('the sanctions list has not been read yet', 'list-missing');
    const age = (this.deps.now ?? Date.now)() - state.refreshedAt.getTime();
    if (age > this.deps.maxListAgeMs) {
      throw new ScreeningUnavailable(
        `the sanctions list was last refreshed at ${state.refreshedAt.toISOString()}, longer ago than allowed`,
        'list-stale',
      );
    }
    if (assets) return { listed: true, source: OFAC_SDN.source, programme: OFAC_SDN.programme };
    if (!this.deps.provider) return { listed: false };
    let answer: ProviderScreening;
    try {
      answer = await this.deps.provider.screen(address);
    } catch (error) {
      // An outage, a wrong answer or a refusal (a revoked API key): nothing was screened, so nothing passes.
      throw new ScreeningUnavailable(`the screening provider did not answer: ${(error as Error).message}`, 'provider', {
        cause: error,
      });
    }
    return answer.listed
      ? {
          listed: true,
          source: 'screening-provider',
          programme: answer.categories.map((c) => c.toUpperCase()).join(', '),
        }
      : { listed: false };
  }
}

/** The screening both processes build from their settings and the stored list (one composition, two roots). */
export function sanctionsScreeningFrom(
  settings: {
    SANCTIONS_LIST_MAX_AGE_HOURS: number;
    SCREENING_PROVIDER_URL?: string;
    SCREENING_PROVIDER_API_KEY?: string;
    SCREENING_TIMEOUT_MS: number;
  },
  list: { read(key: string): Promise<ScreeningRead> },
): SanctionsScreening {
  return new SanctionsScreening({
    ...list,
    maxListAgeMs: settings.SANCTIONS_LIST_MAX_AGE_HOURS * 3600_000,
    provider: settings.SCREENING_PROVIDER_URL
      ? new SanctionsProviderClient({
          baseUrl: settings.SCREENING_PROVIDER_URL,
          apiKey: settings.SCREENING_PROVIDER_API_KEY ?? '',
          timeoutMs: settings.SCREENING_TIMEOUT_MS,
        })
      : undefined,
  });
}
