import Koa from 'koa';
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import { FaultInjector, type FaultSettings } from './faults';
import { identityProviderRouter, type IdentityProviderOptions } from './identity-provider';
import { ocrProviderRouter } from './ocr-provider';

export type SandboxOptions = IdentityProviderOptions;

/**
 * All third-party stand-ins on one port: /pass/v1 (identity), /ocr/v1 (OCR), and /_faults to inject
 * delays and failures per service ({"target":"ocr","failTimes":2}).
 */
export function createSandboxApp(options: SandboxOptions): { koa: Koa; faults: FaultInjector; setCallbackUrl(url: string): void } {
  const faults = new FaultInjector();
  const admin = new Router();
  admin.put('/_faults/:target', (ctx) => {
    faults.set(ctx.params.target!, ((ctx.request as unknown as { body?: FaultSettings }).body ?? {}));
    ctx.body = faults.get(ctx.params.target!);
  });
  admin.delete('/_faults', (ctx) => { faults.clear(); ctx.status = 204; });

  const identity = identityProviderRouter(options);
  const ocr = ocrProviderRouter();
  const koa = new Koa();
  koa.use(bodyParser({ enableTypes: ['json'], jsonLimit: '20mb' }));
  koa.use(admin.routes());
  koa.use(async (ctx, next) => {
    if (ctx.path.startsWith('/pass/')) return faults.middleware('identity')(ctx, next);
    if (ctx.path.startsWith('/ocr/')) return faults.middleware('ocr')(ctx, next);
    return next();
  });
  koa.use(identity.routes());
  koa.use(ocr.routes());
  // The identity router reads options.callbackUrl at every delivery, so it can be set after the API starts.
  return { koa, faults, setCallbackUrl: (url) => { options.callbackUrl = url; } };
}
