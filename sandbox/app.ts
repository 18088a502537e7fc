import Koa from 'koa';
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import type { SMTPServer } from 'smtp-server';
import { FaultInjector, type FaultSettings } from './faults';
import { IdentityAgency, identityProviderRouter, type IdentityProviderOptions } from './identity-provider';
import { clovaOcrRouter } from './clova-ocr';
import { openBankingRouter } from './open-banking';
import { upbitQuotationRouter } from './upbit-quotation';
import { krxGoldRouter } from './krx-gold';
import { exchangeAccountsRouter } from './exchange-accounts';
import { SandboxCodeHub } from './code-hub';
import { kisRouter } from './kis';
import { cexRouter } from './cex';
import { mailSandbox } from './mail';
import { webhookReceiverRouter } from './webhook-receiver';
import { usebRouter } from './useb';
import { sanctionsRouter } from './sanctions';
import { SandboxVaspNetwork, type TravelRuleIdentities } from './travel-rule-network';
import { SANDBOX_CONTRACT_ACCOUNT } from './service-env';
import { JupiterSandbox } from './jupiter';
import { niceRouter } from './nice';

export interface SandboxOptions extends IdentityProviderOptions {
  /** The open banking centre's view of us: our app's client id and secret, institution code, contracted account. */
  bank: {
    clientId: string;
    clientSecret: string;
    institutionCode: string;
    contractAccountNum: string;
    depositPassPhrase: string;
  };
  /** CLOVA OCR's secret of our domain (ID_CARD_OCR_SECRET). */
  ocrSecret: string;
  /** useB's client id and secret of ours (ID_CARD_CHECK_CLIENT_ID / _SECRET). */
  idCheck: { clientId: string; clientSecret: string };
  cexClientId: string;
  cexClientSecret: string;
  /** The SMTP AUTH credentials of the mail service (MAIL_SMTP_USER / MAIL_SMTP_PASSWORD of the worker). */
  mailUser: string;
  mailPassword: string;
  /** PEM key and certificate for the mail service's STARTTLS; unset: it offers none. */
  mailTls?: { key: string; cert: string };
  /** Our key at the KRX Open API (GOLD_PRICE_AUTH_KEY). */
  goldAuthKey: string;
  /**
   * The service as a member of CODE's network: its entity id and signing key (TRAVEL_RULE_CODE_*), and where its
   * Response API listens (TRAVEL_RULE_CODE_PORT), when it is known at the start.
   */
  codeMember: { entityId: string; signingKey: string; serverUrl?: string };
  /** The screening provider's API key (SCREENING_PROVIDER_API_KEY). */
  screeningApiKey: string;
  /** Our key at Jupiter's Swap API (JUPITER_API_KEY). */
  jupiterApiKey: string;
  /** The Travel Rule network's certificates (travelRuleIdentities): its exchanges' TRP servers listen with them. */
  travelRule: TravelRuleIdentities;
}

/**
 * All third-party stand-ins on one port, each speaking its provider's published protocol: /pass/v1 (identity, the
 * interface's own callback), /digital/niceid and /CheckPlusSafeModel (NICE's 본인확인 API and standard window), /kftc (the KFTC open banking API), /clova (CLOVA OCR's ID-card model), /useb (useB's
 * token service and status API), /upbit (Upbit's quotation API and its Exchange API's accounts), /bithumb (Bithumb's accounts), /code (CODE's Travel Rule hub and its exchanges), /krx/svc/apis (the KRX Open API's gold market), /kis (Korea Investment's open API, its paper-trading domain), /cex (OAuth), /mail/v1/_inbox (what the SMTP server
 * took), /receiver/v1 (an app's webhook receiver), /ofac (the SDN list), /jupiter (Jupiter's Swap API V2 over a pool on the local SOLANA chain), /api/v1/address (sanctions screening),
 * /trp/_* (the Travel Rule network's administration: its two exchanges speak TRP on ports of their own), and /_faults to inject delays and failures
 * per service ({"target":"ocr","failTimes":2}). The mail service listens for SMTP on a port of its own.
 */
export interface SandboxApp {
  koa: Koa;
  /** The mail service's SMTP server: listen on a port of its own (SANDBOX_SMTP_PORT). */
  smtp: SMTPServer;
  /** The Travel Rule network's exchanges: listen() starts their TRP servers (mutual TLS), a port each. */
  travelRule: SandboxVaspNetwork;
  faults: FaultInjector;
  setCallbackUrl(url: string): void;
  /** CODE's hub: where the service's Response API is (its member's server URL). */
  codeHub: SandboxCodeHub;
  /** Jupiter's Swap API over a pool on the local SOLANA chain (attach it to the chain first). */
  jupiter: JupiterSandbox;
}

/** Which fault target guards which paths; a provider's sandbox administration (`_…`) stays reachable while it fails. */
const FAULT_TARGETS: Array<[prefix: string, target: string]> = [
  ['/pass/', 'identity'],
  ['/digital/niceid/', 'identity'],
  ['/CheckPlusSafeModel/', 'identity'],
  ['/clova/', 'ocr'],
  ['/kftc/', 'bank'],
  ['/upbit/v1/candles/', 'prices'],
  ['/upbit/v1/ticker', 'prices'],
  ['/krx/', 'prices'],
  ['/upbit/v1/accounts', 'cex'],
  ['/upbit/v1/api_keys', 'cex'],
  ['/bithumb/', 'cex'],
  ['/code/', 'code'],
  ['/kis/', 'securities'],
  ['/cex/', 'cex'],
  ['/useb/', 'idcheck'],
  ['/api/v1/address/', 'chainalysis'],
  ['/ofac/', 'ofac'],
  ['/jupiter/', 'dex'],
];
const isAdministration = (path: string) => /^\/[^/]+\/(v1\/)?_/.test(path);

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

  const mail = mailSandbox({
    user: options.mailUser,
    password: options.mailPassword,
    tls: options.mailTls,
    faults,
    log: options.log,
  });
  const agency = new IdentityAgency();
  // The exchanges of the Travel Rule network answer on ports of their own (listen), with the faults of target trp.
  // CODE's hub (the Korean exchanges' Travel Rule network) with the service as a member.
  const codeHub = new SandboxCodeHub({ members: [options.codeMember] });
  const travelRule = new SandboxVaspNetwork(options.travelRule, { faults: faults.middleware('trp'), log: options.log });
  const jupiter = new JupiterSandbox({ apiKey: options.jupiterApiKey });
  const routers = [
    jupiter.router(),
    identityProviderRouter(options, agency),
    niceRouter({ clientId: options.clientId, clientSecret: options.clientSecret, agency }),
    openBankingRouter({
      ciOf: (name, birthDate, phone) => agency.ciOf(name, birthDate, phone),
      clientId: options.bank.clientId,
      clientSecret: options.bank.clientSecret,
      institutionCode: options.bank.institutionCode,
      contractAccount: { ...SANDBOX_CONTRACT_ACCOUNT, accountNo: options.bank.contractAccountNum },
      depositPassPhrase: options.bank.depositPassPhrase,
      log: options.log,
    }),
    clovaOcrRouter({ secret: options.ocrSecret, log: options.log }),
    usebRouter(options.idCheck),
    upbitQuotationRouter(),
    krxGoldRouter({ authKey: options.goldAuthKey }),
    exchangeAccountsRouter('upbit'),
    exchangeAccountsRouter('bithumb'),
    codeHub.router(),
    kisRouter(),
    cexRouter({ clientId: options.cexClientId, clientSecret: options.cexClientSecret }),
    mail.router,
    webhookReceiverRouter(),
    sanctionsRouter({ apiKey: options.screeningApiKey }),
    travelRule.router(),
  ];
  const koa = new Koa();
  koa.use(bodyParser({ enableTypes: ['json', 'form'], jsonLimit: '20mb' }));
  koa.use(admin.routes());
  koa.use(async (ctx, next) => {
    const target = FAULT_TARGETS.find(([prefix]) => ctx.path.startsWith(prefix))?.[1];
    if (!target || isAdministration(ctx.path)) return next();
    return faults.middleware(target)(ctx, next);
  });
  for (const router of routers) koa.use(router.routes());
  // The identity router reads options.callbackUrl at every delivery, so it can be set after the API starts.
  return {
    koa,
    smtp: mail.smtp,
    travelRule,
    jupiter,
    faults,
    codeHub,
    setCallbackUrl: (url) => {
      options.callbackUrl = url;
    },
  };
}
