import { randomBytes } from 'node:crypto';
import Router from '@koa/router';
import type { Context } from 'koa';
import {
  base64Of,
  codeKeyPair,
  openCodePayload,
  sealCodePayload,
  verifyCodeRequest,
  type CodeKeyPair,
} from '../integrations/travel-rule/code/crypto';
import { CODE_HUB } from '../integrations/travel-rule/counterparts';

/**
 * CODE's (CodeVASP's) hub as its members' Request API reaches it (https://docs.codevasp.com: "API 03 - Request API",
 * "Dev 03 - Header Parameter", "Dev 10 - Returning Errors"), under /code, with member exchanges of its own on the
 * other side answering as CODE's Response API asks a member to ("API 04"): every request signed (X-Code-Req-*
 * headers, Ed25519 over datetime, body, nonce), a nonce seen in the last 100 seconds refused, the sender known by
 * `X-Request-Origin` (`code:{entityId}`) and its registered public key, sealed payloads opened with the receiver's key
 * (`X-Code-Req-Remote-PubKey` must be its current one), errors `{errorType, errorMsg}` with CODE's statuses.
 * The other way, the hub's exchanges originate: the hub calls a member's Response API at the server URL it registered
 * (as CODE's hub does: the originator's signature removed, its verify key, origin, datetime and nonce passed on, the
 * member's key as `X-Code-Req-Remote-PubKey`). CODE's own entity `codevasp` is one of them too, with no accounts: its
 * key is listed by Public Key Search like a member's, and it sends Response API requests as CODE's dashboard tests do
 * (CODE asks members to let `codevasp` call every endpoint).
 * Administration: `POST /code/_members` `{entityId, publicKey, serverUrl?}` registers a member (the service); `PUT
 * /code/_accounts/{entityId}/{account}` `{name, behaviour?: verify | deny}` opens an account at one of the hub's
 * exchanges; `POST /code/_rotate/{entityId}` gives one a new key; `GET /code/_transfers` what the exchanges received;
 * `POST /code/_exchanges/{entityId}/send` `{to, method, path, body?, ivms101?}` has one of the hub's exchanges send a
 * Response API request to a member (`ivms101` sealed into `body.payload` for it) and answers `{status, body,
 * ivms101?}` (the answer's payload opened).
 */
/** The paths of CODE's Response API ("API 04") a member serves, by method. */
const RESPONSE_API: Record<string, string[]> = {
  POST: [
    '/v1/beneficiary/VerifyAddress',
    '/v1/beneficiary/transfer',
    '/v1/beneficiary/transfer/txid',
    '/v1/vasp/transfer/status',
    '/v1/verification/tx',
  ],
  PUT: ['/v1/vasp/transfer/status', '/v1/verification/tx'],
  GET: ['/v1/vasp/health'],
};

interface HubExchange {
  entityId: string;
  name: string;
  keys: CodeKeyPair;
  accounts: Map<string, { name: string; behaviour: 'verify' | 'deny' }>;
}

export interface CodeHubTransfer {
  beneficiaryVaspEntityId: string;
  originatingVaspEntityId: string;
  transferId: string;
  currency: string;
  amount: string;
  tradePrice: string;
  tradeCurrency: string;
  /** The IVMS101 message as the exchange opened it. */
  ivms101: Ivms;
  result: 'verified' | 'denied';
  txid?: string;
  status: 'verified' | 'denied' | 'confirmed' | 'canceled';
}

/** The hub's exchanges: entity id and legal name. */
export const CODE_HUB_EXCHANGES: Record<string, string> = {
  'code-gwanghwa': 'Gwanghwa Exchange Inc.',
  'code-mapo': 'Mapo Digital Assets Co., Ltd.',
};
const NONCE_WINDOW_MS = 100_000;

type Ivms = Record<string, unknown>;
/** The value at a path of objects and array indexes, if there is one. */
const dig = (value: unknown, ...path: Array<string | number>): unknown =>
  path.reduce<unknown>((at, key) => (at !== null && typeof at === 'object' ? (at as Ivms)[key] : undefined), value);
const personName = (persons: unknown): string | undefined => {
  const identifier = (dig(persons, 0, 'naturalPerson', 'name', 'nameIdentifier', 0) ??
    dig(persons, 0, 'legalPerson', 'name', 'nameIdentifier', 0)) as Record<string, unknown> | undefined;
  if (!identifier) return undefined;
  if (typeof identifier.legalPersonName === 'string') return identifier.legalPersonName;
  return [identifier.primaryIdentifier, identifier.secondaryIdentifier]
    .filter((p) => typeof p === 'string' && p)
    .join(' ');
};
/** An account as an exchange files it: EVM addresses in any case are one account. */
const accountKey = (account: string) => (/^0x[0-9a-fA-F]{40}$/.test(account) ? account.toLowerCase() : account);
const sameName = (a: string, b: string) => a.replace(/\s+/g, '').toLowerCase() === b.replace(/\s+/g, '').toLowerCase();

export class SandboxCodeHub {
  private readonly exchanges = new Map<string, HubExchange>();
  private readonly members = new Map<string, { publicKey: string; serverUrl?: string }>();
  private readonly nonces = new Map<string, number>();
  readonly transfers: CodeHubTransfer[] = [];
  private ready: Promise<void>;

  /** `members`: members outside the hub (the service), by entity id and signing key (the seed their key pair is of). */
  constructor(
    private readonly options: {
      now?: () => number;
      members?: Array<{ entityId: string; signingKey: string; serverUrl?: string }>;
    } = {},
  ) {
    this.ready = Promise.all([
      ...[...Object.entries(CODE_HUB_EXCHANGES), [CODE_HUB.entityId, CODE_HUB.name]].map(async ([entityId, name]) =>
        this.exchanges.set(entityId, { entityId, name, keys: await this.newKeys(), accounts: new Map() }),
      ),
      ...(options.members ?? []).map(async ({ entityId, signingKey, serverUrl }) =>
        this.register(entityId, base64Of((await codeKeyPair(signingKey)).publicKey), serverUrl),
      ),
    ]).then(() => undefined);
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  private async newKeys(): Promise<CodeKeyPair> {
    return codeKeyPair(randomBytes(32).toString('base64'));
  }

  /** A member of the hub outside it (the service): its entity id, verify key and Response API server. */
  register(entityId: string, publicKey: string, serverUrl?: string): void {
    this.members.set(entityId, { publicKey, serverUrl: serverUrl ?? this.members.get(entityId)?.serverUrl });
  }

  /** Where a member's Response API is (its dashboard's server URL). */
  async setServerUrl(entityId: string, serverUrl: string): Promise<void> {
    await this.ready;
    const member = this.members.get(entityId);
    if (member) member.serverUrl = serverUrl;
  }

  /**
   * One of the hub's exchanges sends a member a Response API request through the hub: unsigned as the hub passes it
   * on, its payload sealed for the member; the member's answer as it came, its payload opened.
   */
  async send(
    from: string,
    input: { to: string; method: string; path: string; body?: Record<string, unknown>; ivms101?: Ivms },
  ): Promise<{ status: number; body: unknown; ivms101?: Ivms }> {
    await this.ready;
    const exchange = this.exchanges.get(from);
    const member = this.members.get(input.to);
    if (!exchange || !member?.serverUrl)
      throw new Error(`no exchange ${from}, or no member ${input.to} with a server URL`);
    if (!RESPONSE_API[input.method]?.includes(input.path))
      throw new Error(`${input.method} ${input.path} is not an endpoint of CODE's Response API`);
    const body = input.ivms101
      ? {
          ...input.body,
          payload: await sealCodePayload(exchange.keys, member.publicKey, { ivms101: input.ivms101 }),
        }
      : input.body;
    const response = await fetch(`${member.serverUrl}${input.path}`, {
      method: input.method,
      headers: {
        ...(body ? { 'content-type': 'application/json' } : {}),
        'X-Code-Req-Datetime': new Date(this.now()).toISOString().replace(/\.\d{3}Z$/, 'Z'),
        'X-Code-Req-Nonce': String(randomBytes(4).readUInt32BE()),
        'X-Code-Req-PubKey': base64Of(exchange.keys.publicKey),
        'X-Request-Origin': `code:${exchange.entityId}`,
        ...(input.ivms101 ? { 'X-Code-Req-Remote-PubKey': member.publicKey } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    let answer: unknown = text;
    try {
      answer = JSON.parse(text);
    } catch {
      // Not JSON: passed on as text.
    }
    const sealed = (answer as { payload?: unknown } | null)?.payload;
    let opened: Ivms | undefined;
    if (typeof sealed === 'string')
      opened = ((await openCodePayload(exchange.keys, member.publicKey, sealed)) as { ivms101?: Ivms }).ivms101;
    return { status: response.status, body: answer, ...(opened ? { ivms101: opened } : {}) };
  }

  router(): Router {
    const router = new Router({ prefix: '/code' });
    const fail = (ctx: Context, status: number, errorType: string, errorMsg: string) => {
      ctx.status = status;
      ctx.body = { errorType, errorMsg };
    };
    const body = (ctx: Context) =>
      ((ctx.request as unknown as { body?: unknown }).body ?? {}) as Record<string, unknown>;

    router.post('/_members', (ctx) => {
      const { entityId, publicKey, serverUrl } = body(ctx);
      if (
        typeof entityId !== 'string' ||
        typeof publicKey !== 'string' ||
        Buffer.from(publicKey, 'base64').length !== 32 ||
        (serverUrl !== undefined && (typeof serverUrl !== 'string' || !/^https?:\/\//.test(serverUrl)))
      )
        return fail(
          ctx,
          400,
          'SANDBOX',
          'entityId, publicKey (a 32-byte Ed25519 verify key, base64), serverUrl? (http(s)://)',
        );
      this.register(entityId, publicKey, serverUrl as string | undefined);
      ctx.status = 204;
    });
    router.post('/_exchanges/:entityId/send', async (ctx) => {
      const input = body(ctx) as {
        to?: unknown;
        method?: unknown;
        path?: unknown;
        body?: unknown;
        ivms101?: unknown;
      };
      if (typeof input.to !== 'string' || typeof input.method !== 'string' || typeof input.path !== 'string')
        return fail(ctx, 400, 'SANDBOX', 'to (a member), method, path (of the Response API), body?, ivms101?');
      try {
        ctx.body = await this.send(ctx.params.entityId!, {
          to: input.to,
          method: input.method,
          path: input.path,
          body: input.body as Record<string, unknown> | undefined,
          ivms101: input.ivms101 as Ivms | undefined,
        });
      } catch (error) {
        fail(ctx, 400, 'SANDBOX', (error as Error).message);
      }
    });
    router.put('/_accounts/:entityId/:account', async (ctx) => {
      await this.ready;
      const exchange = this.exchanges.get(ctx.params.entityId!);
      const { name, behaviour = 'verify' } = body(ctx) as { name?: unknown; behaviour?: unknown };
      if (!exchange || typeof name !== 'string' || (behaviour !== 'verify' && behaviour !== 'deny'))
        return fail(
          ctx,
          400,
          'SANDBOX',
          `one of ${Object.keys(CODE_HUB_EXCHANGES).join(', ')}, a name, behaviour verify | deny`,
        );
      exchange.accounts.set(accountKey(decodeURIComponent(ctx.params.account!)), { name, behaviour });
      ctx.body = { entityId: exchange.entityId, account: ctx.params.account, name, behaviour };
    });
    router.post('/_rotate/:entityId', async (ctx) => {
      await this.ready;
      const exchange = this.exchanges.get(ctx.params.entityId!);
      if (!exchange) return fail(ctx, 404, 'SANDBOX', 'no such exchange');
      exchange.keys = await this.newKeys();
      ctx.body = { entityId: exchange.entityId, publicKey: base64Of(exchange.keys.publicKey) };
    });
    router.get('/_transfers', (ctx) => {
      ctx.body = { transfers: this.transfers };
    });

    /** The signed request's sender, or undefined once a refusal is answered. */
    const authenticate = async (ctx: Context): Promise<{ entityId: string; publicKey: string } | undefined> => {
      await this.ready;
      const header = (name: string) => ctx.get(name);
      const required = [
        'X-Code-Req-Datetime',
        'X-Code-Req-Nonce',
        'X-Code-Req-PubKey',
        'X-Code-Req-Signature',
        'X-Request-Origin',
      ];
      const missing = required.filter((name) => !header(name));
      if (missing.length) return void fail(ctx, 422, 'MISSING_HEADER_FIELD', `missing ${missing.join(', ')}`);
      const origin = /^([a-z0-9]+):([A-Za-z0-9._-]+)$/.exec(header('X-Request-Origin'));
      if (!origin)
        return void fail(ctx, 422, 'ILLEGAL_FORMAT_OF_ORIGIN', 'X-Request-Origin is {allianceName}:{vaspEntityId}');
      const registered = this.members.get(origin[2]!)?.publicKey;
      if (origin[1] !== 'code' || !registered)
        return void fail(ctx, 422, 'INVALID_ORIGIN', `unknown member ${origin[0]}`);
      const nonce = Number(header('X-Code-Req-Nonce'));
      if (!/^\d+$/.test(header('X-Code-Req-Nonce')) || nonce > 0xffffffff)
        return void fail(ctx, 422, 'INVALID_MSG_FIELD_VALUE', 'X-Code-Req-Nonce is an unsigned 32-bit integer');
      const raw = (ctx.request as unknown as { rawBody?: string }).rawBody ?? '';
      if (
        header('X-Code-Req-PubKey') !== registered ||
        !(await verifyCodeRequest(
          registered,
          header('X-Code-Req-Signature'),
          header('X-Code-Req-Datetime'),
          raw,
          nonce,
        ))
      )
        return void fail(ctx, 422, 'INVALID_HEADER_SIGNATURE', 'the signature does not verify with the registered key');
      const at = this.now();
      for (const [key, seen] of this.nonces) if (at - seen > NONCE_WINDOW_MS) this.nonces.delete(key);
      const nonceKey = `${origin[2]} ${nonce}`;
      if (this.nonces.has(nonceKey))
        return void fail(ctx, 422, 'DUPLICATED_HEADER_NONCE', 'this nonce was used in the last 100 seconds');
      this.nonces.set(nonceKey, at);
      return { entityId: origin[2]!, publicKey: registered };
    };
    /** The target exchange of a sealed request whose remote key is its current one, or undefined once refused. */
    const target = (ctx: Context, sealed: boolean): HubExchange | undefined => {
      const exchange = this.exchanges.get(ctx.params.entityId!);
      if (!exchange) return void fail(ctx, 422, 'INVALID_TARGET_VASP_ID', `no VASP ${ctx.params.entityId}`);
      if (sealed && ctx.get('X-Code-Req-Remote-PubKey') !== base64Of(exchange.keys.publicKey))
        return void fail(ctx, 422, 'INVALID_RECEIVER_PUBLIC_KEY', "not the beneficiary VASP's current public key");
      return exchange;
    };
    const open = async (ctx: Context, exchange: HubExchange, sender: string): Promise<Ivms | undefined> => {
      try {
        const opened = (await openCodePayload(exchange.keys, sender, String(body(ctx).payload ?? ''))) as {
          ivms101?: Ivms;
        };
        if (!opened?.ivms101) throw new Error('no ivms101');
        return opened.ivms101;
      } catch {
        // The exchange's own answer, passed through by the hub.
        return void fail(ctx, 503, 'INVALID_ENCRYPTED_BODY', 'the payload does not open with our key and yours');
      }
    };

    router.get('/v1/code/Vasp/:entityId/pubkey', async (ctx) => {
      if (!(await authenticate(ctx))) return;
      const exchange = target(ctx, false);
      if (!exchange) return;
      ctx.body = {
        pubkeys: [
          {
            pubkey: base64Of(exchange.keys.publicKey),
            expiresAt: new Date(this.now() + 30 * 86_400_000).toISOString(),
          },
        ],
      };
    });

    router.post('/v1/code/VerifyAddress/:entityId', async (ctx) => {
      const sender = await authenticate(ctx);
      if (!sender) return;
      const exchange = target(ctx, true);
      if (!exchange) return;
      const ivms101 = await open(ctx, exchange, sender.publicKey);
      if (!ivms101) return;
      const account = dig(ivms101, 'Beneficiary', 'accountNumber', 0);
      if (typeof account !== 'string')
        return fail(ctx, 422, 'MISSING_REQUIRED_MSG_FIELD', 'Beneficiary.accountNumber is required');
      const known = exchange.accounts.has(accountKey(account));
      ctx.body = {
        result: known ? 'valid' : 'invalid',
        reasonType: known ? '' : 'NOT_FOUND_ADDRESS',
        reasonMsg: known ? '' : 'no such address at this VASP',
        beneficiaryVaspEntityId: exchange.entityId,
      };
    });

    router.post('/v1/code/transfer/:entityId', async (ctx) => {
      const sender = await authenticate(ctx);
      if (!sender) return;
      const exchange = target(ctx, true);
      if (!exchange) return;
      const input = body(ctx);
      const missing = ['transferId', 'currency', 'amount', 'tradePrice', 'tradeCurrency', 'payload'].filter(
        (name) => typeof input[name] !== 'string' || !input[name],
      );
      if (missing.length || typeof input.isExceedingThreshold !== 'boolean')
        return fail(
          ctx,
          422,
          'MISSING_REQUIRED_MSG_FIELD',
          `missing ${[...missing, 'isExceedingThreshold'].join(', ')}`,
        );
      const ivms101 = await open(ctx, exchange, sender.publicKey);
      if (!ivms101) return;
      const accountNumber = dig(ivms101, 'Beneficiary', 'accountNumber', 0);
      const account = typeof accountNumber === 'string' ? exchange.accounts.get(accountKey(accountNumber)) : undefined;
      const beneficiaryName = personName(dig(ivms101, 'Beneficiary', 'beneficiaryPersons'));
      const originatorName = personName(dig(ivms101, 'Originator', 'originatorPersons'));
      // Name validation defaults to false (04-3): verified only when every condition is met.
      let denial: [string, string] | undefined;
      if (!account) denial = ['NOT_FOUND_ADDRESS', 'no such address at this VASP'];
      else if (!beneficiaryName || !sameName(beneficiaryName, account.name))
        denial = ['', "the beneficiary's name is not the account holder's"];
      else if (!originatorName) denial = ['', "the originator's name is missing"];
      else if (account.behaviour === 'deny') denial = ['', 'refused by the beneficiary VASP'];
      const result = denial ? 'denied' : 'verified';
      this.transfers.push({
        beneficiaryVaspEntityId: exchange.entityId,
        originatingVaspEntityId: sender.entityId,
        transferId: String(input.transferId),
        currency: String(input.currency),
        amount: String(input.amount),
        tradePrice: String(input.tradePrice),
        tradeCurrency: String(input.tradeCurrency),
        ivms101,
        result,
        status: result,
      });
      const answer = {
        ...ivms101,
        BeneficiaryVASP: {
          beneficiaryVASP: {
            legalPerson: {
              name: { nameIdentifier: [{ legalPersonName: exchange.name, legalPersonNameIdentifierType: 'LEGL' }] },
              countryOfRegistration: 'KR',
            },
          },
        },
      };
      ctx.body = {
        result,
        reasonType: denial?.[0] ?? '',
        reasonMsg: denial?.[1] ?? '',
        transferId: input.transferId,
        beneficiaryVasp: {},
        ...(denial ? {} : { payload: await sealCodePayload(exchange.keys, sender.publicKey, { ivms101: answer }) }),
      };
    });

    /** The sender's transfer to the exchange the path names, or undefined once a refusal is answered. */
    const transferOf = async (ctx: Context): Promise<CodeHubTransfer | undefined> => {
      const sender = await authenticate(ctx);
      if (!sender) return undefined;
      const exchange = target(ctx, false);
      if (!exchange) return undefined;
      const transfer = this.transfers.find(
        (t) =>
          t.transferId === body(ctx).transferId &&
          t.originatingVaspEntityId === sender.entityId &&
          t.beneficiaryVaspEntityId === exchange.entityId,
      );
      if (!transfer) return void fail(ctx, 503, 'UNKNOWN_TRANSFER_ID', 'no such transfer');
      return transfer;
    };

    router.post('/v1/code/transfer/:entityId/txid', async (ctx) => {
      const transfer = await transferOf(ctx);
      if (!transfer) return;
      const { transferId, txid } = body(ctx);
      const reason =
        transfer.status === 'canceled' || transfer.status === 'denied'
          ? 'TRANSFER_ALREADY_FAILED'
          : transfer.txid && transfer.txid !== txid
            ? 'TXID_ALREADY_EXISTS'
            : '';
      if (!reason) Object.assign(transfer, { txid, status: 'confirmed' });
      ctx.body = { transferId, result: reason ? 'error' : 'normal', reasonType: reason };
    });

    router.put('/v1/code/transfer/:entityId/status', async (ctx) => {
      const transfer = await transferOf(ctx);
      if (!transfer) return;
      const { transferId, status } = body(ctx);
      if (status !== 'canceled') return fail(ctx, 422, 'INVALID_MSG_FIELD_VALUE', 'status is canceled');
      // "An attempted change to the same state is considered a success."
      if (transfer.status === 'confirmed')
        return (ctx.body = { transferId, result: 'error', reasonType: 'ILLEGAL_STATEFLOW' });
      transfer.status = 'canceled';
      ctx.body = { transferId, result: 'normal', reasonType: '' };
    });
    return router;
  }
}
