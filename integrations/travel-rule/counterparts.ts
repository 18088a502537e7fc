import { fingerprintHex } from '../provider-http';
import type { TravelRuleCounterpart } from './trp';

/**
 * TRAVEL_RULE_COUNTERPARTS: `{"<vasp id>": {"name", "origin", "certificateSha256", "ivms101"?}}`, the VASPs we
 * exchange Travel Rule messages with. `origin` is their TRP origin (https://host[:port]); `certificateSha256` the
 * SHA-256 fingerprint of the certificate they serve and present as a client (hex, colons allowed), or a list of
 * them while one replaces another; `ivms101` the form they read (2020 or 2023, default 2020).
 */
export function counterpartsFromJson(json: string): TravelRuleCounterpart[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new Error('TRAVEL_RULE_COUNTERPARTS is not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error('TRAVEL_RULE_COUNTERPARTS must be a JSON object of VASP id -> {name, origin, certificateSha256}');
  const counterparts = Object.entries(parsed as Record<string, Record<string, unknown> | null>).map(([id, c]) => {
    const pins = typeof c?.certificateSha256 === 'string' ? [c.certificateSha256] : c?.certificateSha256;
    const valid =
      /^[A-Za-z0-9._-]{1,128}$/.test(id) &&
      typeof c?.name === 'string' &&
      c.name.length > 0 &&
      c.name.length <= 300 &&
      typeof c.origin === 'string' &&
      /^https:\/\/[^/?#@]+$/.test(c.origin) &&
      Array.isArray(pins) &&
      pins.length > 0 &&
      pins.every((p) => typeof p === 'string' && /^[0-9a-f]{64}$/i.test(fingerprintHex(p))) &&
      (c.ivms101 === undefined || c.ivms101 === '2020' || c.ivms101 === '2023');
    if (!valid)
      throw new Error(
        `TRAVEL_RULE_COUNTERPARTS: ${id} needs name, origin (https://host[:port]), certificateSha256 (the SHA-256 fingerprint of its certificate, or a list of them) and at most ivms101 ("2020" or "2023")`,
      );
    return {
      id,
      name: c!.name as string,
      origin: new URL(c!.origin as string).origin,
      pins: (pins as string[]).map(fingerprintHex),
      ivms101: (c!.ivms101 as '2020' | '2023' | undefined) ?? '2020',
    };
  });
  const origins = new Set(counterparts.map((c) => c.origin));
  if (origins.size !== counterparts.length)
    throw new Error('TRAVEL_RULE_COUNTERPARTS: two VASPs share an origin (a Travel Address must name one VASP)');
  const pins = counterparts.flatMap((c) => c.pins);
  if (new Set(pins).size !== pins.length)
    throw new Error('TRAVEL_RULE_COUNTERPARTS: two VASPs share a certificate (a certificate must name one VASP)');
  return counterparts;
}

/** The counterpart at a URL's origin (a Travel Address's, a callback's), if we exchange with it. */
export const counterpartAt = (
  counterparts: TravelRuleCounterpart[],
  url: string,
): TravelRuleCounterpart | undefined => {
  let origin: string;
  try {
    origin = new URL(url).origin;
  } catch {
    return undefined;
  }
  return counterparts.find((c) => c.origin === origin);
};

/** The counterpart that presented a certificate (its SHA-256 fingerprint, as Node gives it), if pinned. */
export const counterpartPresenting = (
  counterparts: TravelRuleCounterpart[],
  fingerprint256: string | undefined,
): TravelRuleCounterpart | undefined => {
  if (!fingerprint256) return undefined;
  const hex = fingerprintHex(fingerprint256);
  return counterparts.find((c) => c.pins.includes(hex));
};

/** A VASP on CODE's network we exchange Travel Rule data with: its CODE entity id and name. */
export interface CodeVasp {
  entityId: string;
  name: string;
}

/**
 * CODE's own entity (`X-Request-Origin: code:codevasp`): CODE asks every member to let it call each Response API
 * endpoint (Response API, "Getting Started"); its dashboard tests a member's API as it. It is the hub, not a VASP a
 * transfer goes to or comes from: api/http/code-listener.ts says what it is answered.
 */
export const CODE_HUB: CodeVasp = { entityId: 'codevasp', name: 'CodeVASP' };

/** TRAVEL_RULE_CODE_VASPS: `{"<CODE entity id>": "<name>"}`, the CODE members we exchange with after due diligence. */
export function codeVaspsFromJson(json: string): CodeVasp[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new Error('TRAVEL_RULE_CODE_VASPS is not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error('TRAVEL_RULE_CODE_VASPS must be a JSON object of CODE entity id -> name');
  return Object.entries(parsed as Record<string, unknown>).map(([entityId, name]) => {
    if (!/^[A-Za-z0-9._-]{2,64}$/.test(entityId) || typeof name !== 'string' || !name || name.length > 300)
      throw new Error(`TRAVEL_RULE_CODE_VASPS: ${entityId} needs a name (the entity id: letters, digits, . _ -)`);
    return { entityId, name };
  });
}
