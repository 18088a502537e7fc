import { BlockList, isIP, type Socket } from 'node:net';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import Koa, { type Context } from 'koa';
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import { Type, type TSchema } from '@sinclair/typebox';
import type { Logger } from 'pino';
import { CODE_HUB, type CodeVasp } from '../../integrations/travel-rule/counterparts';
import { CodeRefusal, codeRefusalOf, type CodeInbound, type CodeSender } from '../compliance/code-inbound';
import { HttpError } from './problems';
import { validatePart } from './validation';

/**
 * CODE's Response API on its own listener (TRAVEL_RULE_CODE_PORT): the eight endpoints CODE's hub calls on a member
 * ("API 04"), and nothing else. Only CODE's addresses reach it (TRAVEL_RULE_CODE_ALLOWED_IPS, checked against the
 * connection's own peer: CODE asks members to allow its IPs, as it allows theirs); the hub strips the originator's
 * signature ("X-Request-Signature will be removed by CODE Central Server"), so a message is trusted for coming from
 * the hub, from a member of our list (`X-Request-Origin: code:{entityId}`, TRAVEL_RULE_CODE_VASPS) and for opening
 * with that member's key (`X-Code-Req-PubKey`). Every answer is HTTP 200 as CODE requires ("Dev 07"); a request we
 * cannot process is 503 `{errorType, errorMsg}` ("Dev 10"). HTTPS with our certificate when TRAVEL_RULE_CODE_TLS_*
 * is set.
 *
 * CODE's own entity (`code:codevasp`, CODE_HUB), which CODE asks members to let call every endpoint, is admitted the
 * same way (CODE's address, and a key CODE's Public Key Search lists for `codevasp`), listed or not, and answered only
 * what concerns no person: health, an address search, a transfer's status, a txid search. CODE is not a VASP a
 * transfer goes to or comes from, and it says it cannot read the personal data its members exchange (end-to-end
 * encryption, "Communication Scenarios"): an authorization, a txid report, a cancelation (which only the transfer's
 * counterpart makes, and which record a transfer) and the Asset Transfer Data Request (the originator's name and
 * birth date) are refused to it, 503 UNACCEPTABLE_REQUEST, before anything is read.
 */
const Str = (maxLength: number) => Type.String({ minLength: 1, maxLength });
const Optional = (maxLength: number) => Type.Optional(Type.String({ maxLength }));
// An IVMS101 message is a few kilobytes: 32 KB of base64 is room for any, and bounds what a record keeps.
const Sealed = Type.String({ minLength: 1, maxLength: 32_000 });
const TransferId = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9-]+$' });
const Interop = { address: Optional(200), tag: Optional(100), network: Optional(64) };

const VerifyAddressBody = Type.Object({ currency: Str(16), payload: Sealed, ...Interop });
const TransferBody = Type.Object({
  transferId: TransferId,
  currency: Str(16),
  amount: Type.String({ minLength: 1, maxLength: 80, pattern: '^[0-9]+(\\.[0-9]+)?$' }),
  historicalCost: Optional(80),
  tradePrice: Type.String({ minLength: 1, maxLength: 80 }),
  tradeCurrency: Type.String({ minLength: 3, maxLength: 3 }),
  // A string in CODE's Response API page, a boolean in some senders: both read.
  isExceedingThreshold: Type.Union([Type.Boolean(), Type.String({ maxLength: 5 })]),
  originatingVasp: Type.Optional(Type.Unknown()),
  payload: Sealed,
  ...Interop,
});
const TxidBody = Type.Object({ transferId: TransferId, txid: Str(128), vout: Optional(16) });
const TransferIdBody = Type.Object({ transferId: TransferId });
const FinishBody = Type.Object({ transferId: TransferId, status: Type.Literal('canceled'), reasonType: Optional(200) });
const TxSearchBody = Type.Object({ txid: Str(128), beneficiaryAddress: Str(300) });
const TxDataBody = Type.Object({
  transferId: TransferId,
  txid: Str(128),
  beneficiaryAddress: Str(300),
  payload: Sealed,
});

export function codeResponseApp(deps: {
  inbound: CodeInbound;
  vasps: CodeVasp[];
  /** Our verify key (base64): `X-Code-Req-Remote-PubKey`, when the hub sends it, must be it. */
  publicKey: string;
  allowed: BlockList;
  logger: Logger;
}): Koa {
  const koa = new Koa();
  koa.proxy = false;
  koa.use(async (ctx, next) => {
    const peer = peerAddress(ctx.req.socket.remoteAddress);
    if (!peer || !deps.allowed.check(peer.address, peer.family)) {
      ctx.status = 403;
      ctx.body = {
        errorType: 'UNACCEPTABLE_REQUEST',
        errorMsg: 'not an address of CODE (TRAVEL_RULE_CODE_ALLOWED_IPS)',
      };
      return;
    }
    try {
      await next();
    } catch (error) {
      const refusal = codeRefusalOf(error) ?? fieldRefusal(error) ?? limitRefusal(error);
      if (!refusal) deps.logger.error({ err: error, path: ctx.path }, 'CODE response API failed');
      ctx.status = 503;
      ctx.body = refusal
        ? { errorType: refusal.errorType, errorMsg: refusal.message.slice(0, 500) }
        : { errorType: 'VASP_BACKEND_INTERNAL_ERROR', errorMsg: 'the request could not be processed; retry' };
    }
  });
  koa.use(
    bodyParser({
      enableTypes: ['json'],
      jsonLimit: '512kb',
      encoding: 'utf-8',
      onError: () => {
        throw new CodeRefusal('INVALID_MSG_FIELD_VALUE', 'the body is not JSON');
      },
    }),
  );

  /** The sender: a member of our list, or CODE's own entity where the endpoint answers it (`hub: 'answered'`). */
  const sender = (ctx: Context, hub: 'answered' | 'refused'): CodeSender => {
    const origin = ctx.get('X-Request-Origin');
    const publicKey = ctx.get('X-Code-Req-PubKey');
    if (!origin || !publicKey)
      throw new CodeRefusal('MISSING_HEADER_FIELD', 'X-Request-Origin and X-Code-Req-PubKey are required');
    const [, alliance, entityId] = /^([a-z0-9]+):([A-Za-z0-9._-]{2,64})$/.exec(origin) ?? [];
    // CODE's entity is the hub even if someone lists it: listing it makes it no counterpart.
    const isHub = alliance === 'code' && entityId === CODE_HUB.entityId;
    if (isHub && hub === 'refused')
      throw new CodeRefusal(
        'UNACCEPTABLE_REQUEST',
        "code:codevasp is CODE's hub, not a counterpart: only a transfer's VASP authorizes, reports or cancels it, " +
          'or is given its Travel Rule data',
      );
    const vasp = isHub ? CODE_HUB : alliance === 'code' ? deps.vasps.find((v) => v.entityId === entityId) : undefined;
    if (!vasp)
      throw new CodeRefusal(
        'UNACCEPTABLE_REQUEST',
        `${origin.slice(0, 80)} is not a VASP we exchange Travel Rule data with (after due diligence)`,
      );
    if (Buffer.from(publicKey, 'base64').length !== 32)
      throw new CodeRefusal('INVALID_MSG_FIELD_VALUE', 'X-Code-Req-PubKey is a 32-byte Ed25519 verify key, base64');
    const remote = ctx.get('X-Code-Req-Remote-PubKey');
    if (remote && remote !== deps.publicKey)
      throw new CodeRefusal('INVALID_ENCRYPTED_BODY', 'X-Code-Req-Remote-PubKey is not our current public key');
    return isHub ? { vasp, publicKey, hub: true } : { vasp, publicKey };
  };
  const member = (ctx: Context) => sender(ctx, 'refused');
  const memberOrHub = (ctx: Context) => sender(ctx, 'answered');
  const body = <S extends TSchema>(ctx: Context, schema: S) =>
    validatePart<import('@sinclair/typebox').Static<S>>(
      schema,
      (ctx.request as unknown as { body?: unknown }).body ?? {},
      'body',
    );

  const router = new Router();
  router.post('/v1/beneficiary/VerifyAddress', async (ctx) => {
    ctx.body = await deps.inbound.verifyAddress(memberOrHub(ctx), body(ctx, VerifyAddressBody));
  });
  router.post('/v1/beneficiary/transfer', async (ctx) => {
    ctx.body = await deps.inbound.authorize(member(ctx), body(ctx, TransferBody));
  });
  router.post('/v1/beneficiary/transfer/txid', async (ctx) => {
    ctx.body = await deps.inbound.reportTxid(member(ctx), body(ctx, TxidBody));
  });
  router.post('/v1/vasp/transfer/status', async (ctx) => {
    ctx.body = await deps.inbound.transferStatus(memberOrHub(ctx), body(ctx, TransferIdBody));
  });
  router.put('/v1/vasp/transfer/status', async (ctx) => {
    ctx.body = await deps.inbound.finish(member(ctx), body(ctx, FinishBody));
  });
  router.post('/v1/verification/tx', async (ctx) => {
    ctx.body = await deps.inbound.searchTxid(memberOrHub(ctx), body(ctx, TxSearchBody));
  });
  router.put('/v1/verification/tx', async (ctx) => {
    ctx.body = await deps.inbound.transferData(member(ctx), body(ctx, TxDataBody));
  });
  // CODE keeps a member `up` while this answers 200 ("API 04-9").
  router.get('/v1/vasp/health', (ctx) => {
    ctx.body = { status: 'up' };
  });
  koa.use(router.routes());
  koa.use((ctx) => {
    ctx.status = 404;
    ctx.body = { errorType: 'UNACCEPTABLE_REQUEST', errorMsg: 'not an endpoint of the CODE Response API' };
  });
  return koa;
}

/** A validation failure of a body as CODE's error types name it. */
function fieldRefusal(error: unknown): CodeRefusal | undefined {
  if (!(error instanceof HttpError) || (error.status !== 400 && error.status !== 422)) return undefined;
  const details = (error.errors ?? []).map((e) => `${e.pointer || '/'} ${e.detail}`).join('; ');
  const missing = (error.errors ?? []).some((e) => / is required$/.test(e.detail));
  return new CodeRefusal(
    missing ? 'MISSING_REQUIRED_MSG_FIELD' : 'INVALID_MSG_FIELD_VALUE',
    details || error.detail || 'invalid message',
  );
}

/**
 * A limit reached (a member's messages, an address's daily tries of names): refused as unacceptable, with when to try
 * again. Not an error of ours to log, nor a VASP_BACKEND_INTERNAL_ERROR, which asks the member to retry at once.
 */
function limitRefusal(error: unknown): CodeRefusal | undefined {
  if (!(error instanceof HttpError) || error.status !== 429) return undefined;
  return new CodeRefusal('UNACCEPTABLE_REQUEST', error.detail ?? 'too many requests; try again later');
}

/** The connection's peer as an address BlockList checks (an IPv4 address mapped into IPv6 as IPv4). */
function peerAddress(remote: string | undefined): { address: string; family: 'ipv4' | 'ipv6' } | undefined {
  if (!remote) return undefined;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(remote)?.[1];
  const address = mapped ?? remote;
  const family = isIP(address);
  return family === 0 ? undefined : { address, family: family === 4 ? 'ipv4' : 'ipv6' };
}

/** TRAVEL_RULE_CODE_ALLOWED_IPS (addresses and CIDR ranges, comma-separated) as a BlockList of what is let in. */
export function codeAllowList(setting: string): BlockList {
  const list = new BlockList();
  const entries = setting
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (entries.length === 0)
    throw new Error('TRAVEL_RULE_CODE_ALLOWED_IPS is required with TRAVEL_RULE_CODE_PORT: only CODE may call it');
  for (const entry of entries) {
    const [address, prefix] = entry.split('/');
    const family = isIP(address ?? '');
    if (family === 0 || (prefix !== undefined && !/^\d{1,3}$/.test(prefix)))
      throw new Error(`TRAVEL_RULE_CODE_ALLOWED_IPS: ${entry} is not an IP address or CIDR range`);
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) list.addAddress(address!, type);
    else list.addSubnet(address!, Number(prefix), type);
  }
  return list;
}

/** Serves the CODE Response API: HTTPS with our certificate when one is given, HTTP otherwise (behind TLS). */
export function serveCodeListener(
  app: Koa,
  options: { host: string; port: number; tls?: { cert: string; key: string }; allowed?: BlockList },
): Promise<Server> {
  const server = options.tls
    ? createHttpsServer({ cert: options.tls.cert, key: options.tls.key, minVersion: 'TLSv1.2' }, app.callback())
    : createHttpServer(app.callback());
  server.requestTimeout = 30_000;
  // Another peer is dropped as it connects, before a TLS handshake or a request is read (the app checks again).
  const allowed = options.allowed;
  if (allowed)
    server.on('connection', (socket: Socket) => {
      const peer = peerAddress(socket.remoteAddress);
      if (!peer || !allowed.check(peer.address, peer.family)) socket.destroy();
    });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
