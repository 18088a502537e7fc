import Koa from 'koa';
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import { FaultInjector, type FaultSettings } from './faults';
import { identityProviderRouter, type IdentityProviderOptions } from './identity-provider';
import { ocrProviderRouter } from './ocr-provider';
import { bankRouter } from './bank';
import { pricesRouter } from './prices';
import { securitiesRouter } from './securities';
import { cexRouter } from './cex';
import { mailRouter } from './mail';
import { webhookReceiverRouter } from './webhook-receiver';
import { idCardCheckRouter } from './id-card-check';
import { sanctionsRouter } from './sanctions';
import { vaspsRouter } from './vasps';

export interface SandboxOptions extends IdentityProviderOptions {
  bankClientSecret: string;
  bankWebhookSecret: string;
  /** Where the bank reports settled withdrawals (the API's /api/v1/bank/webhooks/withdrawals). */
  bankWebhookUrl?: string;
  securitiesClientSecret: string;
  cexClientId: string;
  cexClientSecret: string;
  /** The mail provider's API key (MAIL_API_KEY of the worker). */
  mailApiKey: string;
  /** The ID-card authenticity service's API key (ID_CARD_CHECK_API_KEY of the worker). */
  idCardCheckApiKey: string;
  /** The screening provider's API key (SCREENING_PROVIDER_API_KEY). */
  screeningApiKey: string;
  /** The VASP directory's API key (VASP_DIRECTORY_API_KEY). */
  vaspDirectoryApiKey: string;
}

/**
 * All third-party stand-ins on one port: /pass/v1 (identity), /ocr/v1 (OCR), /bank/v1 (bank), /prices/v1, /securities/v1, /cex (OAuth), /mail/v1, /idcheck/v1 (ID-card authenticity), /receiver/v1 (an app's webhook receiver), /ofac (the SDN list), /api/v1/address (sanctions screening), /vasps/v1 (VASP directory), /trp (two exchanges' Travel Rule endpoints), and /_faults to inject
 * delays and failures per service ({"target":"ocr","failTimes":2}).
 */
export interface SandboxApp {
  koa: Koa;
  faults: FaultInjector;
  setCallbackUrl(url: string): void;
  setBankWebhookUrl(url: string): void;
}

export function createSandboxApp(options: SandboxOptions): SandboxApp {
  const faults = new FaultInjector();
  const admin = new Router();
  admin.put('/_faults/:target', (ctx) => {
    faults.set(ctx.params.target!, (ctx.request as unknown as { body?: FaultSettings }).body ?? {});
    ctx.body = faults.get(ctx.params.target!);
  });
  admin.get('/_faults/:target', (ctx) => {
    ctx.body = faults.get(ctx.params.target!) ?? {};
  });
  admin.delete('/_faults', (ctx) => {
    faults.clear();
    ctx.status = 204;
  });

  const identity = identityProviderRouter(options);
  const ocr = ocrProviderRouter();
  const bankOptions = {
    clientSecret: options.bankClientSecret,
    webhookSecret: options.bankWebhookSecret,
    webhookUrl: options.bankWebhookUrl ?? '',
    log: options.log,
  };
  const bank = bankRouter(bankOptions);
  const others = [
    pricesRouter(),
    securitiesRouter({ clientSecret: options.securitiesClientSecret }),
    cexRouter({ clientId: options.cexClientId, clientSecret: options.cexClientSecret }),
    mailRouter({ apiKey: options.mailApiKey }),
    idCardCheckRouter({ apiKey: options.idCardCheckApiKey }),
    webhookReceiverRouter(),
    sanctionsRouter({ apiKey: options.screeningApiKey }),
    vaspsRouter({ apiKey: options.vaspDirectoryApiKey }),
  ];
  const koa = new Koa();
  koa.use(bodyParser({ enableTypes: ['json', 'form'], jsonLimit: '20mb' }));
  koa.use(admin.routes());
  koa.use(async (ctx, next) => {
    if (ctx.path.startsWith('/pass/')) return faults.middleware('identity')(ctx, next);
    if (ctx.path.startsWith('/ocr/')) return faults.middleware('ocr')(ctx, next);
    // Sandbox administration (/bank/v1/_…) stays reachable while the bank's API is failing.
    if (ctx.path.startsWith('/bank/') && !ctx.path.startsWith('/bank/v1/_'))
      return faults.middleware('bank')(ctx, next);
    if (ctx.path.startsWith('/prices/')) return faults.middleware('prices')(ctx, next);
    if (ctx.path.startsWith('/securities/') && !ctx.path.includes('/_'))
      return faults.middleware('securities')(ctx, next);
    if (ctx.path.startsWith('/cex/') && !ctx.path.startsWith('/cex/_')) return faults.middleware('cex')(ctx, next);
    if (ctx.path.startsWith('/mail/') && !ctx.path.startsWith('/mail/v1/_'))
      return faults.middleware('mail')(ctx, next);
    if (ctx.path.startsWith('/idcheck/') && !ctx.path.startsWith('/idcheck/v1/_'))
      return faults.middleware('idcheck')(ctx, next);
    if (ctx.path.startsWith('/api/v1/address/')) return faults.middleware('chainalysis')(ctx, next);
    if (ctx.path === '/ofac/sdn_advanced.xml') return faults.middleware('ofac')(ctx, next);
    if (ctx.path.startsWith('/vasps/') && !ctx.path.startsWith('/vasps/v1/_'))
      return faults.middleware('vasps')(ctx, next);
    if (ctx.path.startsWith('/trp/') && !ctx.path.startsWith('/trp/_')) return faults.middleware('trp')(ctx, next);
    return next();
  });
  koa.use(identity.routes());
  koa.use(ocr.routes());
  koa.use(bank.routes());
  for (const router of others) koa.use(router.routes());
  // The identity router reads options.callbackUrl at every delivery, so it can be set after the API starts.
  return {
    koa,
    faults,
    setCallbackUrl: (url) => {
      options.callbackUrl = url;
    },
    setBankWebhookUrl: (url) => {
      bankOptions.webhookUrl = url;
    },
  };
}
