import { randomUUID, X509Certificate } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import Koa, { type Middleware } from 'koa';
import Router from '@koa/router';
import { Agent, fetch } from 'undici';
import { TestCa } from './certificates';
import { decodeTravelAddress, encodeTravelAddress } from '../integrations/travel-rule/travel-address';

/**
 * A Travel Rule network for the sandbox: three Korean exchanges that speak TRP v3 as TRISA's open-source implementation
 * does (`pkg/openvasp` v1.1.1), each on its own HTTPS port with mutual TLS, and the certificates of a private CA for
 * them and for the service. What they read and write is TRISA's, not ours: `api-version` exactly 3.1.0, a strict body
 * (unknown keys, a string amount, a numeric slip0044 refused), IVMS101 in the 2020 form only (2023 keys are not
 * seen), the resolution in the inquiry's 200 answer, 204 to a confirmation, errors as text.
 *
 * Administration is on the sandbox's HTTP port: `PUT /trp/_accounts/{vaspId}/{network}/{address}`
 * `{beneficiaryName, behaviour?, callbackDelayMs?}` opens an account and answers its Travel Address (behaviour: approve or
 * reject in the inquiry's answer; async, twice or malformed answer `{version}` and post the decision to the callback
 * after callbackDelayMs, twice, or after something that is no resolution; timeout never decides); `GET /trp/_inquiries` is what the exchanges received; `POST
 * /trp/_send/{vaspId}` makes an exchange send an inquiry (originator side) to a Travel Address, and its confirmation.
 */
export const SANDBOX_VASPS = [
  { id: 'vasp-hanbit', name: 'Hanbit Exchange (sandbox, 한빛거래소)' },
  { id: 'vasp-coinmaru', name: 'Coinmaru (sandbox, 코인마루)' },
  { id: 'vasp-dasan', name: 'Dasan Digital Assets (sandbox, 다산디지털)' },
] as const;
export type SandboxVaspId = (typeof SANDBOX_VASPS)[number]['id'];

export type CounterpartBehaviour = 'approve' | 'reject' | 'async' | 'timeout' | 'malformed' | 'twice';

interface Identity {
  cert: string;
  key: string;
  certFile: string;
  keyFile: string;
  fingerprint256: string;
}

/** The network's certificates: the CA, the service's (TRAVEL_RULE_TLS_*), each exchange's. */
export interface TravelRuleIdentities {
  ca: string;
  caFile: string;
  service: Identity;
  vasps: Record<SandboxVaspId, Identity>;
  /** Another leaf of the CA (a VASP outside the sandbox, in tests); only when the CA was made by this process. */
  issue?: (name: string) => Identity;
}

const NAMES = ['wallet-service', ...SANDBOX_VASPS.map((v) => v.id)];

/**
 * The certificates, made once into `dir` (kept there: npm start's .data/trp) or a temporary folder, read back when
 * they are there. Each leaf serves `localhost` (TRISA's Travel Addresses cannot name an IP with a port) and
 * 127.0.0.1, and is a client certificate as well.
 */
export function travelRuleIdentities(dir?: string): TravelRuleIdentities {
  const file = (name: string) => `${dir}/${name}`;
  const made = dir !== undefined && NAMES.every((n) => existsSync(file(`${n.replace(/\W/g, '_')}.pem`)));
  const ca = made ? undefined : new TestCa('Sandbox Travel Rule CA', { dir, days: 825 });
  const path = (name: string) => (ca ? ca.path(name) : file(name));
  const identity = (name: string): Identity => {
    if (ca) ca.issue(name, { server: ['localhost', '127.0.0.1'], client: true });
    const base = name.replace(/\W/g, '_');
    const cert = readFileSync(path(`${base}.pem`), 'utf8');
    return {
      cert,
      key: readFileSync(path(`${base}.key`), 'utf8'),
      certFile: path(`${base}.pem`),
      keyFile: path(`${base}.key`),
      fingerprint256: new X509Certificate(cert).fingerprint256,
    };
  };
  return {
    ...(ca ? { issue: identity } : {}),
    ca: readFileSync(path('ca.pem'), 'utf8'),
    caFile: path('ca.pem'),
    service: identity('wallet-service'),
    vasps: Object.fromEntries(SANDBOX_VASPS.map((v) => [v.id, identity(v.id)])) as Record<SandboxVaspId, Identity>,
  };
}

/** TRAVEL_RULE_COUNTERPARTS of a service in the network: each exchange's name, TRP origin and certificate's pin. */
export const sandboxCounterparts = (identities: TravelRuleIdentities, origins: Record<SandboxVaspId, string>): string =>
  JSON.stringify(
    Object.fromEntries(
      SANDBOX_VASPS.map((v) => [
        v.id,
        { name: v.name, origin: origins[v.id], certificateSha256: identities.vasps[v.id].fingerprint256 },
      ]),
    ),
  );

interface Account {
  vaspId: SandboxVaspId;
  beneficiaryName: string;
  behaviour: CounterpartBehaviour;
  callbackDelayMs: number;
}

interface Received {
  vaspId: string;
  requestIdentifier: string;
  apiVersion: string;
  body: unknown;
  decision: string;
  answer: unknown;
  confirmation?: { txid?: string; canceled?: string };
}

/** TRISA's SLIP-0044 symbols among the coins these exchanges list (its table has neither SOL nor MATIC). */
const SLIP0044 = new Set(['BTC', 'ETH']);

const sameName = (a: string, b: string) =>
  a.normalize('NFC').replace(/\s+/g, '').toLowerCase() === b.normalize('NFC').replace(/\s+/g, '').toLowerCase();

/** IVMS101 as TRISA's pkg/ivms101 reads it (2020 keys; others are silently not seen). */
function read2020(payload: unknown): { names: string[]; account?: string } {
  const p = (payload ?? {}) as {
    beneficiary?: {
      beneficiaryPersons?: Array<{
        naturalPerson?: {
          name?: Record<string, Array<{ primaryIdentifier?: string; secondaryIdentifier?: string }> | undefined>;
        };
      }>;
      accountNumber?: string[];
    };
  };
  const names = (p.beneficiary?.beneficiaryPersons ?? []).flatMap((person) =>
    ['localNameIdentifier', 'nameIdentifier'].flatMap((k) =>
      (person.naturalPerson?.name?.[k] ?? []).map((n) =>
        [n.secondaryIdentifier, n.primaryIdentifier].filter(Boolean).join(' '),
      ),
    ),
  );
  return { names, account: p.beneficiary?.accountNumber?.[0] };
}

const text = (ctx: Koa.Context, status: number, message: string) => {
  ctx.status = status;
  ctx.type = 'text/plain; charset=utf-8';
  ctx.body = `${message}\n`;
};

export class SandboxVaspNetwork {
  readonly accounts = new Map<string, Account>();
  readonly received: Received[] = [];
  /** Resolutions the exchanges got at /resolve for inquiries they sent. */
  readonly resolutions: Array<{ vaspId: string; requestIdentifier: string; body: unknown }> = [];
  private readonly servers: Server[] = [];
  readonly origins = {} as Record<SandboxVaspId, string>;

  constructor(
    readonly identities: TravelRuleIdentities,
    private readonly options: { faults?: Middleware; log?: (line: string) => void } = {},
  ) {}

  /** Starts each exchange's TRP server (mutual TLS) on its port (0: any free one); answers their origins. */
  async listen(ports: Partial<Record<SandboxVaspId, number>> = {}): Promise<Record<SandboxVaspId, string>> {
    for (const vasp of SANDBOX_VASPS) {
      const identity = this.identities.vasps[vasp.id];
      const server = createServer(
        {
          cert: identity.cert,
          key: identity.key,
          ca: this.identities.ca,
          requestCert: true,
          rejectUnauthorized: true,
        },
        this.exchangeApp(vasp.id).callback(),
      );
      await new Promise<void>((resolve) => server.listen(ports[vasp.id] ?? 0, '127.0.0.1', resolve));
      this.servers.push(server);
      this.origins[vasp.id] = `https://localhost:${(server.address() as AddressInfo).port}`;
    }
    return this.origins;
  }

  /** TRAVEL_RULE_COUNTERPARTS of a service in this network. */
  counterpartsJson(): string {
    return sandboxCounterparts(this.identities, this.origins);
  }

  async close(): Promise<void> {
    await Promise.all(this.servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }

  /** The Travel Address of an exchange's inquiry endpoint (one for all its accounts, as TRISA's examples). */
  travelAddressOf(vaspId: SandboxVaspId): string {
    return encodeTravelAddress(`${this.origins[vaspId]}/transfers`);
  }

  private key = (address: string) => (/^0x[0-9a-fA-F]{40}$/.test(address) ? address.toLowerCase() : address);

  /** The administration routes, on the sandbox's HTTP port. */
  router(): Router {
    const router = new Router();
    router.put('/trp/_accounts/:vaspId/:network/:address', (ctx) => {
      const body = (ctx.request as unknown as { body?: Partial<Account> }).body ?? {};
      const vaspId = ctx.params.vaspId as SandboxVaspId;
      if (!SANDBOX_VASPS.some((v) => v.id === vaspId) || !body.beneficiaryName) {
        ctx.status = 400;
        ctx.body = {
          error: `vaspId (${SANDBOX_VASPS.map((v) => v.id).join(' or ')}) and beneficiaryName are required`,
        };
        return;
      }
      this.accounts.set(this.key(ctx.params.address!), {
        vaspId,
        beneficiaryName: body.beneficiaryName,
        behaviour: body.behaviour ?? 'approve',
        callbackDelayMs: body.callbackDelayMs ?? 200,
      });
      ctx.body = {
        vaspId,
        network: ctx.params.network,
        address: ctx.params.address,
        travelAddress: this.travelAddressOf(vaspId),
      };
    });
    router.get('/trp/_inquiries', (ctx) => {
      ctx.body = { inquiries: this.received, resolutions: this.resolutions };
    });
    router.post('/trp/_send/:vaspId', async (ctx) => {
      const vaspId = ctx.params.vaspId as SandboxVaspId;
      const body = (ctx.request as unknown as { body?: Record<string, unknown> }).body ?? {};
      if (!SANDBOX_VASPS.some((v) => v.id === vaspId) || typeof body.travelAddress !== 'string') {
        ctx.status = 400;
        ctx.body = { error: 'a known vaspId and a travelAddress are required' };
        return;
      }
      try {
        ctx.body = await this.send(vaspId, body as unknown as SendRequest);
      } catch (error) {
        const cause = (error as Error & { cause?: Error }).cause;
        ctx.status = 502;
        ctx.body = { error: `${(error as Error).message}${cause ? ` (${cause.message})` : ''}` };
      }
    });
    return router;
  }

  /** An exchange as originator: its inquiry to a Travel Address, then its confirmation when approved and asked. */
  async send(vaspId: SandboxVaspId, request: SendRequest) {
    const url = decodeTravelAddress(request.travelAddress);
    const identity = this.identities.vasps[vaspId];
    const dispatcher = new Agent({ connect: { cert: identity.cert, key: identity.key, ca: this.identities.ca } });
    const requestIdentifier = request.requestIdentifier ?? randomUUID();
    const post = async (to: string, payload: string) => {
      const response = await fetch(to, {
        method: 'POST',
        headers: {
          'content-type': 'application/json; charset=utf-8',
          'api-version': request.apiVersion ?? '3.1.0',
          'request-identifier': requestIdentifier,
        },
        body: payload,
        dispatcher,
      });
      const answer = await response.text();
      let json: unknown;
      try {
        json = answer ? JSON.parse(answer) : undefined;
      } catch {
        json = answer;
      }
      return {
        status: response.status,
        contentType: response.headers.get('content-type'),
        retryAfter: response.headers.get('retry-after'),
        body: json,
      };
    };
    try {
      const vasp = SANDBOX_VASPS.find((v) => v.id === vaspId)!;
      const payload =
        request.payload ??
        ivms2020({
          originator: request.originator ?? {
            name: 'Kim Minjun',
            account: '0x1111111111111111111111111111111111111111',
          },
          beneficiary: request.beneficiary ?? { name: '', account: '' },
          vaspName: vasp.name,
        });
      const marker = '"__amount__"';
      const inquiry = JSON.stringify({
        asset: request.asset ?? { slip0044: 'ETH' },
        amount: '__amount__',
        callback: request.callback ?? `${this.origins[vaspId]}/resolve`,
        IVMS101: payload,
      }).replace(marker, String(request.amount ?? '0.25'));
      const resolution = await post(url, inquiry);
      const approved = (resolution.body as { approved?: { callback?: string } } | undefined)?.approved;
      const confirmation =
        approved?.callback && request.confirm
          ? await post(approved.callback, JSON.stringify(request.confirm))
          : undefined;
      return { requestIdentifier, resolution, ...(confirmation ? { confirmation } : {}) };
    } finally {
      await dispatcher.close();
    }
  }

  /** One exchange's TRP server: inquiries at /transfers, confirmations at /confirm/{id}, resolutions at /resolve. */
  private exchangeApp(vaspId: SandboxVaspId): Koa {
    const app = new Koa();
    if (this.options.faults) app.use(this.options.faults);
    // TRISA's APIChecks: POST, api-version exactly 3.1.0, a request-identifier, a JSON content type.
    app.use(async (ctx, next) => {
      if (ctx.method !== 'POST') return text(ctx, 405, 'Method Not Allowed');
      if (ctx.get('api-version') !== '3.1.0') return text(ctx, 400, 'must specify api version header 3.1.0');
      if (!ctx.get('request-identifier')) return text(ctx, 400, 'must specify request identifier');
      const type = ctx.get('content-type');
      if (type && !/^application\/json\b/.test(type))
        return text(ctx, 415, 'content-type header must be application/json');
      ctx.set('api-version', '3.1.0');
      ctx.set('request-identifier', ctx.get('request-identifier'));
      const chunks: Buffer[] = [];
      for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
      try {
        (ctx.state as { body: unknown }).body = JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null');
      } catch {
        return text(ctx, 400, 'request body contains badly-formed JSON');
      }
      return next();
    });
    const router = new Router();
    router.post('/transfers', (ctx) => this.inquiry(ctx, vaspId));
    router.post('/confirm/:requestIdentifier', (ctx) => {
      const body = (ctx.state as { body: { txid?: unknown; canceled?: unknown } | null }).body ?? {};
      const inquiry = this.received.find(
        (i) => i.vaspId === vaspId && i.requestIdentifier === ctx.params.requestIdentifier,
      );
      if (!inquiry) return text(ctx, 404, 'Not Found');
      const { txid, canceled } = body;
      if ((txid === undefined) === (canceled === undefined))
        return text(ctx, 400, 'must specify either txid or canceled in confirmation');
      inquiry.confirmation = {
        ...(typeof txid === 'string' ? { txid } : {}),
        ...(typeof canceled === 'string' ? { canceled } : {}),
      };
      ctx.status = 204;
    });
    router.post('/resolve', (ctx) => {
      this.resolutions.push({ vaspId, requestIdentifier: ctx.get('request-identifier'), body: ctx.state.body });
      ctx.status = 204;
    });
    app.use(router.routes());
    return app;
  }

  private inquiry(ctx: Koa.Context, vaspId: SandboxVaspId): void {
    const body = (ctx.state as { body: Record<string, unknown> | null }).body;
    if (!body || typeof body !== 'object') return text(ctx, 400, 'Bad Request');
    const unknown = Object.keys(body).find(
      (k) => !['asset', 'amount', 'callback', 'IVMS101', 'extensions'].includes(k),
    );
    if (unknown) return text(ctx, 400, `request body contains unknown field "${unknown}"`);
    if (typeof body.amount !== 'number')
      return text(ctx, 400, 'request body contains an invalid value for the "amount" field');
    const asset = (body.asset ?? {}) as { slip0044?: unknown; dti?: unknown };
    if (asset.slip0044 !== undefined && typeof asset.slip0044 !== 'string')
      return text(ctx, 400, 'request body contains an invalid value for the "slip0044" field');
    if (typeof asset.slip0044 === 'string' && !SLIP0044.has(asset.slip0044.toUpperCase()))
      return text(ctx, 500, 'unknown coin');
    const requestIdentifier = ctx.get('request-identifier');
    const earlier = this.received.find((i) => i.vaspId === vaspId && i.requestIdentifier === requestIdentifier);
    if (earlier) {
      ctx.body = earlier.answer;
      return;
    }
    const { names, account } = read2020(body.IVMS101);
    const holder = account ? this.accounts.get(this.key(account)) : undefined;
    const origin = this.origins[vaspId];
    const matches =
      holder !== undefined && holder.vaspId === vaspId && names.some((n) => sameName(n, holder.beneficiaryName));
    const behaviour = holder?.vaspId === vaspId ? holder.behaviour : 'approve';
    const decision =
      !holder || holder.vaspId !== vaspId
        ? { rejected: 'no such account at this exchange' }
        : !matches
          ? { rejected: 'beneficiary name mismatch' }
          : behaviour === 'reject'
            ? { rejected: 'the beneficiary refused the transfer' }
            : { approved: { address: account!, callback: `${origin}/confirm/${requestIdentifier}` } };
    const later = matches && ['async', 'timeout', 'twice', 'malformed'].includes(behaviour);
    const answer = later ? { version: '3.1.0' } : decision;
    this.received.push({
      vaspId,
      requestIdentifier,
      apiVersion: ctx.get('api-version'),
      body,
      decision: behaviour === 'timeout' && matches ? 'none' : JSON.stringify(decision),
      answer,
    });
    if (later && behaviour !== 'timeout' && typeof body.callback === 'string') {
      const callback = body.callback;
      const identity = this.identities.vasps[vaspId];
      setTimeout(async () => {
        const dispatcher = new Agent({ connect: { cert: identity.cert, key: identity.key, ca: this.identities.ca } });
        const post = (payload: unknown = decision) =>
          fetch(callback, {
            method: 'POST',
            headers: {
              'content-type': 'application/json; charset=utf-8',
              'api-version': '3.1.0',
              'request-identifier': requestIdentifier,
            },
            body: JSON.stringify(payload),
            dispatcher,
          })
            .then((r) => r.arrayBuffer())
            .catch((error: Error) => this.options.log?.(`trp: resolution to ${callback} failed: ${error.message}`));
        // malformed: something that is no resolution first, then the decision.
        if (behaviour === 'malformed') await post({ approved: 'yes, probably' });
        await post();
        if (behaviour === 'twice') await post();
        await dispatcher.close();
      }, holder!.callbackDelayMs);
    }
    ctx.body = answer;
  }
}

interface SendRequest {
  travelAddress: string;
  requestIdentifier?: string;
  apiVersion?: string;
  asset?: unknown;
  amount?: number | string;
  callback?: string;
  originator?: { name: string; account: string };
  beneficiary?: { name: string; account: string };
  /** The IVMS101 to send as it is (another form, a broken one); otherwise a 2020 one of originator and beneficiary. */
  payload?: unknown;
  confirm?: { txid: string } | { canceled: string };
}

/** An IVMS101 (2020 form, as TRISA writes it) of a natural-person originator and beneficiary. */
function ivms2020(parties: {
  originator: { name: string; account: string };
  beneficiary: { name: string; account: string };
  vaspName: string;
}) {
  const person = (name: string) => ({
    naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: name, nameIdentifierType: 'LEGL' }] } },
  });
  return {
    originator: { originatorPersons: [person(parties.originator.name)], accountNumber: [parties.originator.account] },
    beneficiary: {
      beneficiaryPersons: [person(parties.beneficiary.name)],
      accountNumber: [parties.beneficiary.account],
    },
    originatingVASP: {
      originatingVASP: {
        legalPerson: {
          name: { nameIdentifier: [{ legalPersonName: parties.vaspName, legalPersonNameIdentifierType: 'LEGL' }] },
        },
      },
    },
  };
}
