import { Pool } from 'pg';
import {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { dialectOf } from '../../db/orm';
import { HttpError } from './problems';

/** A limit: at most `points` requests per `seconds`, per key (user, device or client address). */
export interface RateRule {
  points: number;
  seconds: number;
}

/**
 * The flows worth abusing and their default limits; RATE_LIMITS (JSON) overrides any of them by name. Each limit
 * counts every request that passed validation, whatever its outcome.
 */
export const DEFAULT_RATE_LIMITS = {
  /** Starting a registration costs an identity-provider request. */
  'registration-start-device': { points: 5, seconds: 3600 },
  'registration-start-address': { points: 30, seconds: 3600 },
  /** ID-card images (upload and multipart eKYC), per registration: each is stored, and eKYC costs an OCR reading. */
  'registration-upload': { points: 20, seconds: 3600 },
  /** Verifications opened in NICE's window (IDENTITY_PROVIDER=nice), per calling address: each costs a crypto token. */
  'pass-request-address': { points: 30, seconds: 3600 },
  /** The identity provider's callback (and NICE's browser returns), per calling address. */
  'pass-callback': { points: 600, seconds: 60 },
  /** Each send moves 1 KRW from our operating account. */
  'bank-send-won': { points: 5, seconds: 3600 },
  'bank-send-won-confirm': { points: 20, seconds: 3600 },
  /**
   * Per bank account, whoever asks: 1 KRW sends a day, and wrong codes in 20 days (over it, the account can be neither
   * sent to nor confirmed). A code is 4 digits: with 3 attempts per verification, no one has more than 10 guesses in
   * 20 days at one account, however many accounts of their own (in a name like the holder's) they use.
   */
  'bank-account-send-won': { points: 3, seconds: 24 * 3600 },
  'bank-account-wrong-code': { points: 10, seconds: 20 * 24 * 3600 },
  /** Sign-in on a new device: starts per device and per calling address; proofs (passkey, ID card) per person. */
  'sign-in-device': { points: 10, seconds: 3600 },
  'sign-in-address': { points: 30, seconds: 3600 },
  'sign-in-person': { points: 10, seconds: 24 * 3600 },
  /** Sign-in proofs (an ID-card image, a passkey assertion) per calling address, counted before the body is read. */
  'sign-in-proof-address': { points: 60, seconds: 3600 },
  /** Step-up identity checks per user: each costs an identity-provider introspection and a workflow. */
  'identity-check': { points: 10, seconds: 3600 },
  /** Reading the encrypted wallet backup back, per user (each read is mailed). */
  'backup-read': { points: 10, seconds: 24 * 3600 },
  /** KYC renewal by a registered user: each stores an ID-card image and costs an OCR reading. */
  'kyc-renewal': { points: 5, seconds: 24 * 3600 },
  /** Each request mails a code to an address the user names. */
  'email-send': { points: 5, seconds: 3600 },
  'email-confirm': { points: 20, seconds: 3600 },
  /**
   * WebAuthn challenges (passkey registration and approval options), per user: each is a stored row, so a number no
   * person meets bounds what a token can write (expired ones are swept by the worker's schedule).
   */
  'webauthn-challenge': { points: 20, seconds: 60 },
  /**
   * Payouts asked for, per user: each costs a real-name inquiry and a deposit at the bank, whoever pays for it; a
   * number a person does not meet in a day.
   */
  payout: { points: 20, seconds: 24 * 3600 },
  /** Requests that carry a PIN (besides the PIN lockout itself). */
  'pin-attempt': { points: 30, seconds: 300 },
  'exchange-quote': { points: 120, seconds: 60 },
  /** Market price charts: each may cost several calls of the quotation API, which limits us per IP (Upbit: 10/s). */
  'market-price': { points: 60, seconds: 60 },
  /** Securities verifications: each costs a token and a balance inquiry at the broker (KIS: one token a minute). */
  'securities-verify': { points: 20, seconds: 3600 },
  /** Adding a recipient to the address book (each starts a cooling-off), and preparing a transfer (a price lookup). */
  'address-book': { points: 30, seconds: 3600 },
  'transfer-prepare': { points: 120, seconds: 3600 },
  /** Preparing an operation the service pays gas for (deploy, key rotation, DID key): each asks the worker to sponsor. */
  'sponsored-prepare': { points: 30, seconds: 3600 },
  /**
   * Inbound Travel Rule inquiries: every one per counterpart provider (each costs a lookup, a record and an answer);
   * and new ones (not retries) per beneficiary address, whoever asks, so no one tries more than that many names on
   * an address a day.
   */
  'travel-rule-counterpart': { points: 600, seconds: 3600 },
  'travel-rule-address': { points: 10, seconds: 24 * 3600 },
  /**
   * The names one counterpart tries at one address a day: less than the address's own budget, so that no single
   * counterpart can spend it all and leave the person's other senders refused for a day.
   */
  'travel-rule-counterpart-address': { points: 6, seconds: 24 * 3600 },
  /**
   * Credentials refused (a bad access or refresh token, API key, pass token or webhook signature), per client
   * address: over the limit, every further wrong credential from that address answers 429 until the window passes.
   * A valid credential from the same address is still served (other callers' guesses lock out no one).
   */
  'failed-credentials': { points: 30, seconds: 300 },
} satisfies Record<string, RateRule>;
export type RateRuleName = keyof typeof DEFAULT_RATE_LIMITS;

/**
 * The longest window a rule may have: the in-process store (SQLite mode) expires a key with a Node timer, and a timer
 * longer than 2^31 - 1 ms (24.8 days) fires at once, which would forget every count (found by the 1 KRW guessing test).
 */
export const MAX_WINDOW_SECONDS = 24 * 24 * 3600;

/** RATE_LIMITS: `{"<rule>": {"points": n, "seconds": s}}` for known rules only; anything else stops the process at start. */
export function parseOverrides(json: string): Partial<Record<RateRuleName, RateRule>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new Error('RATE_LIMITS is not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error('RATE_LIMITS must be a JSON object of rules');
  for (const [name, rule] of Object.entries(parsed)) {
    if (!(name in DEFAULT_RATE_LIMITS))
      throw new Error(`RATE_LIMITS: unknown rule ${name}; rules: ${Object.keys(DEFAULT_RATE_LIMITS).join(', ')}`);
    const { points, seconds } = (rule ?? {}) as Partial<RateRule>;
    if (
      !Number.isInteger(points) ||
      points! < 1 ||
      !Number.isInteger(seconds) ||
      seconds! < 1 ||
      seconds! > MAX_WINDOW_SECONDS
    ) {
      throw new Error(
        `RATE_LIMITS: ${name} needs whole numbers points >= 1 and seconds from 1 to ${MAX_WINDOW_SECONDS}`,
      );
    }
  }
  return parsed as Partial<Record<RateRuleName, RateRule>>;
}

/**
 * Limits whose state is never shown to a client (RateLimit fields): budgets of guesses, where how many are left is
 * what an attacker wants to know (refused credentials, 1 KRW codes, sign-in proofs per person).
 */
const UNSHOWN: ReadonlySet<RateRuleName> = new Set(['failed-credentials', 'bank-account-wrong-code', 'sign-in-person']);

/**
 * The RateLimit and RateLimit-Policy fields of the IETF HTTPAPI draft "RateLimit header fields for HTTP"
 * (draft-ietf-httpapi-ratelimit-headers-11, 2026-05-23): per policy (a rule, named as a String), its quota `q` of
 * requests in a window of `w` seconds, and what is left of it `r` for `t` more seconds. No partition key: ours are
 * user ids and client addresses.
 */
export interface RateLimitReading {
  rule: RateRuleName;
  points: number;
  seconds: number;
  remaining: number;
  resetSeconds: number;
}

export const rateLimitFields = (readings: RateLimitReading[]): Record<string, string> =>
  readings.length === 0
    ? {}
    : {
        'ratelimit-policy': readings.map((r) => `"${r.rule}";q=${r.points};w=${r.seconds}`).join(', '),
        ratelimit: readings.map((r) => `"${r.rule}";r=${r.remaining};t=${r.resetSeconds}`).join(', '),
      };

/** How long this process trusts a "not over the limit" answer of the shared store (assertUnder). */
const CHECK_CACHE_MS = 1000;
/** At most this many keys' answers are kept (the oldest go first). */
const CHECK_CACHE_ENTRIES = 10_000;

/** The table the counters live in (migrations create it; rate-limiter-flexible's own layout). */
export const RATE_LIMIT_TABLE = 'rate_limits';

/**
 * Request counters. On PostgreSQL they live in the service's database (rate-limiter-flexible's PostgreSQL store on
 * its own small pool), so every API process shares them. SQLite is the embedded mode with one API process; its
 * counters are kept in that process (a second synchronous SQLite connection in the same process would block the
 * event loop while the ORM's connection holds the write lock).
 */
export class RateLimits {
  /** Told of every refusal (the API counts them per rule). */
  onRefused: (rule: RateRuleName) => void = () => undefined;

  /** assertUnder's answers kept in this process, by rule and key. */
  private readonly checks = new Map<string, { over: boolean; until: number }>();

  private constructor(
    private readonly limiters: Map<RateRuleName, RateLimiterAbstract>,
    private readonly close: () => Promise<void>,
  ) {}

  /** `overrides` as parseOverrides answers them for RATE_LIMITS. */
  static create(databaseUrl: string, overrides: Partial<Record<RateRuleName, RateRule>> = {}): RateLimits {
    const rules = { ...DEFAULT_RATE_LIMITS, ...overrides } as Record<RateRuleName, RateRule>;
    const common = { tableName: RATE_LIMIT_TABLE, tableCreated: true, clearExpiredByTimeout: true };
    let make: (name: RateRuleName, rule: RateRule) => RateLimiterAbstract;
    let close: () => Promise<void>;
    if (dialectOf(databaseUrl) === 'sqlite') {
      make = (name, rule) => new RateLimiterMemory({ keyPrefix: name, points: rule.points, duration: rule.seconds });
      close = async () => undefined;
    } else {
      const pool = new Pool({ connectionString: databaseUrl, max: 4 });
      // An idle connection the server dropped (a restart) must not crash the process; the pool opens a new one.
      // Found by the PostgreSQL restart drill.
      pool.on('error', () => undefined);
      make = (name, rule) =>
        new RateLimiterPostgres({
          ...common,
          storeClient: pool,
          storeType: 'pool',
          keyPrefix: name,
          points: rule.points,
          duration: rule.seconds,
        });
      close = () => pool.end();
    }
    return new RateLimits(
      new Map((Object.keys(rules) as RateRuleName[]).map((name) => [name, make(name, rules[name])])),
      close,
    );
  }

  /**
   * The 429 of a refusal, with Retry-After (and, when `shown`, the RateLimit fields: nothing left for `seconds`);
   * the refusal is reported to `onRefused`.
   */
  private refusal(rule: RateRuleName, limiter: RateLimiterAbstract, seconds: number, shown = false): HttpError {
    this.onRefused(rule);
    return new HttpError(
      429,
      'rate-limited',
      'Too many requests',
      `Limit of ${limiter.points} per ${limiter.duration} s reached (${rule}); try again in ${seconds} s`,
      undefined,
      {
        'retry-after': String(seconds),
        ...(shown
          ? rateLimitFields([
              { rule, points: limiter.points, seconds: limiter.duration, remaining: 0, resetSeconds: seconds },
            ])
          : {}),
      },
    );
  }

  /**
   * Counts one request for `key` under `rule` (or `cost` units: a request that tries several things at once, as a
   * Travel Rule message naming several names, spends one for each); over the limit it throws 429 with Retry-After.
   * Answers what is left, for the RateLimit fields of a route's own limits (`show`: its 429 carries them too; never for
   * a guess budget).
   */
  async consume(rule: RateRuleName, key: string, show = false, cost = 1): Promise<RateLimitReading> {
    if (!Number.isInteger(cost) || cost < 1) throw new Error(`a rate limit's cost is a whole number >= 1, not ${cost}`);
    const limiter = this.limiters.get(rule)!;
    const shown = show && !UNSHOWN.has(rule);
    try {
      const state = await limiter.consume(key, cost);
      return {
        rule,
        points: limiter.points,
        seconds: limiter.duration,
        remaining: Math.max(0, state.remainingPoints),
        resetSeconds: Math.max(0, Math.ceil(state.msBeforeNext / 1000)),
      };
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection; // the store failed: not the caller's fault
      const seconds = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      throw this.refusal(rule, limiter, seconds, shown);
    }
  }

  /** Whether a rule's state may be shown to the client it limits. */
  static shown(rule: RateRuleName): boolean {
    return !UNSHOWN.has(rule);
  }

  /**
   * Refuses (429) a key that is already over `rule`, without counting this request. Asked on every request that may
   * carry a credential, so the answer is kept in this process: "under" for CHECK_CACHE_MS, "over" until the window
   * passes. Every count this process makes drops the "under" answer, so the next request reads the shared store
   * again; a key that went over on another process is seen here within CHECK_CACHE_MS, and then its first counted
   * refusal here sees it at once (count answers the shared total). What may slip through is bounded: the requests
   * already under way on each process when the key went over.
   */
  async assertUnder(rule: RateRuleName, key: string): Promise<void> {
    const limiter = this.limiters.get(rule)!;
    const cacheKey = `${rule}\u0000${key}`;
    const now = Date.now();
    const known = this.checks.get(cacheKey);
    if (known && now < known.until) {
      if (!known.over) return;
      throw this.refusal(rule, limiter, Math.max(1, Math.ceil((known.until - now) / 1000)));
    }
    const state = await limiter.get(key);
    const over = !!state && state.consumedPoints >= limiter.points;
    this.remember(cacheKey, over, over ? now + state!.msBeforeNext : now + CHECK_CACHE_MS);
    if (over) throw this.refusal(rule, limiter, Math.max(1, Math.ceil(state!.msBeforeNext / 1000)));
  }

  /** Counts one request for `key` under `rule` without refusing this one (the next is refused by assertUnder). */
  async count(rule: RateRuleName, key: string): Promise<void> {
    const cacheKey = `${rule}\u0000${key}`;
    this.checks.delete(cacheKey);
    const state = await this.limiters.get(rule)!.penalty(key, 1);
    if (state.consumedPoints >= this.limiters.get(rule)!.points)
      this.remember(cacheKey, true, Date.now() + state.msBeforeNext);
  }

  /**
   * Takes one unit of `rule` for `key` before the outcome that decides whether the request counts is known (429 when
   * none is left): requests at once each take their own, so none passes on a reading made before the others counted.
   * `giveBack` returns the unit of a request that turned out not to count.
   */
  async reserve(rule: RateRuleName, key: string): Promise<void> {
    try {
      await this.consume(rule, key);
    } finally {
      this.checks.delete(`${rule}\u0000${key}`); // a count: assertUnder reads the shared store again
    }
  }

  /** Returns a unit `reserve` took. */
  async giveBack(rule: RateRuleName, key: string): Promise<void> {
    await this.limiters.get(rule)!.reward(key, 1);
    this.checks.delete(`${rule}\u0000${key}`);
  }

  private remember(cacheKey: string, over: boolean, until: number): void {
    this.checks.delete(cacheKey);
    // Oldest first (a Map keeps insertion order): a flood of addresses cannot grow the process without bound.
    if (this.checks.size >= CHECK_CACHE_ENTRIES) this.checks.delete(this.checks.keys().next().value!);
    this.checks.set(cacheKey, { over, until });
  }

  async stop(): Promise<void> {
    await this.close();
  }
}
