import Router from '@koa/router';
import { beneficiaryAccountOf, beneficiaryNamesOf, readTravelRuleMessage } from '../integrations/travel-rule';

/** How a sandbox exchange answers an inquiry about one of its addresses. */
export type CounterpartBehaviour = 'approve' | 'reject' | 'timeout' | 'malformed' | 'twice';

/** The two Korean exchanges of the sandbox directory. */
export const SANDBOX_VASPS = [
  { id: 'vasp-hanbit', name: 'Hanbit Exchange (sandbox, 한빛거래소)' },
  { id: 'vasp-coinmaru', name: 'Coinmaru (sandbox, 코인마루)' },
] as const;

const sameName = (a: string, b: string) =>
  a.normalize('NFC').replace(/\s+/g, '').toLowerCase() === b.normalize('NFC').replace(/\s+/g, '').toLowerCase();

interface Hosted {
  vaspId: string;
  beneficiaryName: string;
  behaviour: CounterpartBehaviour;
  callbackDelayMs: number;
}

/**
 * Stand-ins for the Travel Rule network: a VASP directory (`GET /vasps/v1/addresses/{network}/{address}` with
 * X-API-Key: which exchange hosts an address, `{hosted: false}` otherwise) and the TRP endpoints of its two exchanges
 * (`POST /trp/{vaspId}`: they check the IVMS101 message, match the beneficiary's name against the holder of the
 * address, and post the decision to the inquiry's callback; the same request identifier again is a retry, answered
 * and not recorded twice). `PUT /vasps/v1/_addresses/{network}/{address}`
 * `{vaspId, beneficiaryName, behaviour?: approve|reject|timeout|malformed|twice, callbackDelayMs?}` hosts an address;
 * `GET /trp/_inquiries` shows what the exchanges received.
 */
export function vaspsRouter(options: { apiKey: string }): Router {
  const hosted = new Map<string, Hosted>();
  const inquiries: Array<{
    vaspId: string;
    requestIdentifier: string;
    apiVersion: string;
    body: unknown;
    decision: string;
    confirmedTxid?: string;
  }> = [];
  const router = new Router();
  const key = (network: string, address: string) =>
    `${network}:${/^0x[0-9a-fA-F]{40}$/.test(address) ? address.toLowerCase() : address}`;

  router.get('/vasps/v1/addresses/:network/:address', (ctx) => {
    if (ctx.get('x-api-key') !== options.apiKey) {
      ctx.status = 401;
      ctx.body = { message: 'invalid API key' };
      return;
    }
    const found = hosted.get(key(ctx.params.network!, ctx.params.address!));
    const vasp = found && SANDBOX_VASPS.find((v) => v.id === found.vaspId);
    ctx.body = vasp
      ? { hosted: true, vasp: { id: vasp.id, name: vasp.name, trpUrl: `${ctx.protocol}://${ctx.host}/trp/${vasp.id}` } }
      : { hosted: false };
  });
  router.put('/vasps/v1/_addresses/:network/:address', (ctx) => {
    const body = (ctx.request as unknown as { body?: Partial<Hosted> }).body ?? {};
    if (!SANDBOX_VASPS.some((v) => v.id === body.vaspId) || !body.beneficiaryName) {
      ctx.status = 400;
      ctx.body = { error: `vaspId (${SANDBOX_VASPS.map((v) => v.id).join(' or ')}) and beneficiaryName are required` };
      return;
    }
    hosted.set(key(ctx.params.network!, ctx.params.address!), {
      vaspId: body.vaspId!,
      beneficiaryName: body.beneficiaryName,
      behaviour: body.behaviour ?? 'approve',
      callbackDelayMs: body.callbackDelayMs ?? 200,
    });
    ctx.body = { network: ctx.params.network, address: ctx.params.address, vaspId: body.vaspId };
  });

  router.post('/trp/:vaspId', (ctx) => {
    const body =
      (ctx.request as unknown as { body?: { IVMS101?: unknown; callback?: string; amount?: string } }).body ?? {};
    const requestIdentifier = ctx.get('request-identifier');
    if (!ctx.get('api-version') || !requestIdentifier || typeof body.callback !== 'string') {
      ctx.status = 400;
      ctx.body = { error: 'api-version and request-identifier headers, and a callback, are required' };
      return;
    }
    // The same request identifier again is the originator retrying (its first answer was lost, or it crashed after
    // sending): the same inquiry, answered again and neither recorded nor decided twice, as a TRP receiver does.
    if (inquiries.some((i) => i.vaspId === ctx.params.vaspId && i.requestIdentifier === requestIdentifier)) {
      ctx.status = 200;
      ctx.body = { version: ctx.get('api-version') };
      return;
    }
    let names: string[];
    let account: string | undefined;
    try {
      const message = readTravelRuleMessage(body.IVMS101);
      names = beneficiaryNamesOf(message);
      account = beneficiaryAccountOf(message);
    } catch (error) {
      ctx.status = 400;
      ctx.body = { error: `not a valid IVMS101 message: ${(error as Error).message.slice(0, 300)}` };
      return;
    }
    const holder = [...hosted.entries()].find(
      ([k, h]) =>
        h.vaspId === ctx.params.vaspId &&
        account !== undefined &&
        k.endsWith(`:${/^0x/.test(account) ? account.toLowerCase() : account}`),
    )?.[1];
    if (!holder) {
      ctx.status = 404;
      ctx.body = { error: 'no such address at this provider' };
      return;
    }
    const matches = names.some((n) => sameName(n, holder.beneficiaryName));
    const decision =
      holder.behaviour === 'reject' || !matches
        ? { rejected: matches ? 'the beneficiary refused the transfer' : 'beneficiary name mismatch' }
        : {
            approved: {
              address: account,
              callback: `${ctx.protocol}://${ctx.host}/trp/${ctx.params.vaspId}/confirmations/${requestIdentifier}`,
            },
          };
    inquiries.push({
      vaspId: ctx.params.vaspId!,
      requestIdentifier,
      apiVersion: ctx.get('api-version'),
      body,
      decision: holder.behaviour === 'timeout' ? 'none' : JSON.stringify(decision),
    });
    const post = (payload: unknown) =>
      fetch(body.callback!, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'api-version': ctx.get('api-version'),
          'request-identifier': requestIdentifier,
        },
        body: JSON.stringify(payload),
      }).catch(() => undefined);
    if (holder.behaviour !== 'timeout') {
      setTimeout(async () => {
        if (holder.behaviour === 'malformed') await post({ approved: 'yes, probably' });
        await post(decision);
        if (holder.behaviour === 'twice') await post(decision);
      }, holder.callbackDelayMs);
    }
    ctx.status = 200;
    ctx.body = { version: ctx.get('api-version') };
  });
  router.post('/trp/:vaspId/confirmations/:requestIdentifier', (ctx) => {
    const inquiry = inquiries.find(
      (i) => i.vaspId === ctx.params.vaspId && i.requestIdentifier === ctx.params.requestIdentifier,
    );
    const txid = (ctx.request as unknown as { body?: { txid?: string } }).body?.txid;
    if (!inquiry || typeof txid !== 'string') {
      ctx.status = 404;
      return;
    }
    inquiry.confirmedTxid = txid;
    ctx.status = 204;
  });
  router.get('/trp/_inquiries', (ctx) => {
    ctx.body = { inquiries };
  });
  return router;
}
