import { createHash, randomBytes, randomUUID } from 'node:crypto';
import Router from '@koa/router';

/**
 * Stand-in for a PASS identity verification provider. The app creates a verification (in production the user does
 * this in the provider's own UI) and receives passRequestId and passToken; the provider then posts the result to our
 * callback with X-Api-Key, retrying until it is acknowledged. Our server introspects pass tokens with its client secret.
 */
export interface IdentityProviderOptions {
  callbackUrl: string;
  callbackApiKey: string;
  clientSecret: string;
  /** NICE's client id of ours (IDENTITY_PROVIDER_CLIENT_ID), with clientSecret: the sandbox's NICE API (sandbox/nice.ts). */
  clientId: string;
  log?: (line: string) => void;
}

/**
 * The people an identity agency has verified: their CI by name, birth date and phone. KFTC's consent screens
 * authenticate a person by phone (휴대폰 본인인증) through such an agency, which is how the centre learns the CI it
 * answers in user/me; the sandbox's bank asks this one.
 */
export class IdentityAgency {
  private readonly cis = new Map<string, string>();
  private static key(name: string, birthDate: string, phone: string): string {
    return `${name.trim()}|${birthDate.replace(/\D/g, '')}|${phone.replace(/\D/g, '')}`;
  }
  remember(person: { name: string; birthDate: string; phone: string }, ci: string): void {
    this.cis.set(IdentityAgency.key(person.name, person.birthDate, person.phone), ci);
  }
  /** The CI of the person verified with this name, birth date (any form of YYYYMMDD) and phone, if one was. */
  ciOf(name: string, birthDate: string, phone: string): string | undefined {
    return this.cis.get(IdentityAgency.key(name, birthDate, phone));
  }
}

interface Verification {
  passRequestId: string;
  passToken: string;
  expiresAt: Date;
  result: Record<string, unknown>;
  callbackDelayMs: number;
  deliveries: number;
  acknowledged: boolean;
}

const CALLBACK_ATTEMPTS = 6;

/** `agency`: where the people it verifies are remembered, for the open banking consent screens (IdentityAgency). */
export function identityProviderRouter(options: IdentityProviderOptions, agency?: IdentityAgency): Router {
  const verifications = new Map<string, Verification>();
  const byToken = new Map<string, Verification>();

  const deliver = async (verification: Verification): Promise<number> => {
    verification.deliveries += 1;
    const response = await fetch(options.callbackUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': options.callbackApiKey },
      body: JSON.stringify(verification.result),
      signal: AbortSignal.timeout(10_000),
    });
    if (response.ok) verification.acknowledged = true;
    return response.status;
  };
  const deliverWithRetries = async (verification: Verification): Promise<void> => {
    for (let attempt = 0; attempt < CALLBACK_ATTEMPTS && !verification.acknowledged; attempt += 1) {
      const status = await deliver(verification).catch(() => 0);
      if (status >= 200 && status < 300) return;
      options.log?.(`callback for ${verification.passRequestId} got ${status || 'no answer'}; retrying`);
      await new Promise((r) => setTimeout(r, 200 * 2 ** attempt));
    }
  };

  const router = new Router({ prefix: '/pass/v1' });

  router.post('/verifications', (ctx) => {
    const body = (ctx.request as unknown as { body?: Record<string, unknown> }).body ?? {};
    const { name, phone, birthDate } = body as { name?: string; phone?: string; birthDate?: string };
    if (typeof name !== 'string' || typeof phone !== 'string' || typeof birthDate !== 'string') {
      ctx.status = 400;
      ctx.body = { error: 'name, phone and birthDate are required' };
      return;
    }
    const passRequestId = `pr_${randomUUID()}`;
    // CI belongs to the person, not the phone: derived from the resident registration number when given (as the
    // carrier and the provider know it), else from name and birth date. A new phone number gives the same CI.
    const residentNumber = typeof body.residentNumber === 'string' ? body.residentNumber.replace(/\D/g, '') : '';
    const ci =
      (body.ci as string | undefined) ??
      createHash('sha256')
        .update(residentNumber ? `rrn|${residentNumber}` : `${name}|${birthDate}`)
        .digest('base64');
    const verification: Verification = {
      passRequestId,
      passToken: randomBytes(32).toString('base64url'),
      expiresAt: new Date(Date.now() + Number(body.tokenTtlSeconds ?? 1800) * 1000),
      result: {
        passRequestId,
        success: body.outcome !== 'failure',
        ci,
        di: createHash('sha256').update(`di|${ci}`).digest('base64'),
        name,
        birthDate,
        gender: body.gender ?? 'M',
        nationality: body.nationality ?? 'KR',
        phone,
      },
      callbackDelayMs: Number(body.callbackDelayMs ?? 100),
      deliveries: 0,
      acknowledged: false,
    };
    verifications.set(passRequestId, verification);
    byToken.set(verification.passToken, verification);
    agency?.remember({ name, birthDate, phone }, ci);
    if (body.sendCallback !== false)
      setTimeout(() => void deliverWithRetries(verification), verification.callbackDelayMs);
    ctx.status = 201;
    ctx.body = { passRequestId, passToken: verification.passToken, expiresAt: verification.expiresAt.toISOString() };
  });

  router.get('/verifications/:id', (ctx) => {
    const verification = verifications.get(ctx.params.id!);
    if (!verification) {
      ctx.status = 404;
      ctx.body = { error: 'not found' };
      return;
    }
    ctx.body = {
      passRequestId: verification.passRequestId,
      deliveries: verification.deliveries,
      acknowledged: verification.acknowledged,
    };
  });

  router.post('/verifications/:id/callback', async (ctx) => {
    const verification = verifications.get(ctx.params.id!);
    if (!verification) {
      ctx.status = 404;
      ctx.body = { error: 'not found' };
      return;
    }
    ctx.body = { status: await deliver(verification).catch(() => 0) };
  });

  router.post('/tokens/introspect', (ctx) => {
    if (ctx.get('authorization') !== `Bearer ${options.clientSecret}`) {
      ctx.status = 401;
      ctx.body = { error: 'invalid_client' };
      return;
    }
    const { passToken } = (ctx.request as unknown as { body?: { passToken?: string } }).body ?? {};
    const verification = passToken ? byToken.get(passToken) : undefined;
    ctx.body =
      verification && verification.expiresAt.getTime() > Date.now()
        ? { active: true, passRequestId: verification.passRequestId, expiresAt: verification.expiresAt.toISOString() }
        : { active: false };
  });

  return router;
}
