/** Every route of the API, area by area, wired to the services it is built on (api/services.ts). */
import type { AppDeps } from './deps';
import type { Services } from './services';
import type { RouteSpec } from './http/route-table';
import { API_VERSION, buildOpenApi } from './http/openapi';
import { transferKeyRoutes } from './wallet/transfer-key-routes';
import { problemRoutes } from './system/problem-routes';
import { systemRoutes } from './system/routes';
import { registrationRoutes } from './registration/routes';
import { authRoutes } from './auth/routes';
import { signInRoutes } from './auth/sign-in-routes';
import { identityCheckRoutes } from './auth/identity-check-routes';
import { accountRoutes } from './account/routes';
import { deviceRoutes } from './account/device-routes';
import { recoveryRoutes } from './account/recovery-routes';
import { passkeyRoutes } from './passkeys/routes';
import { walletRoutes } from './wallet/routes';
import { networkWalletRoutes } from './wallet/network-wallet-routes';
import { keyRotationRoutes } from './key-rotation/routes';
import { didRoutes } from './did/routes';
import { credentialRoutes } from './credentials/routes';
import { bankRoutes } from './bank/routes';
import { bankConsentRoutes } from './bank/consent-routes';
import { chargeRoutes } from './charge/routes';
import { payoutRoutes } from './payout/routes';
import { transactionRoutes } from './transactions/routes';
import { operatorRoutes } from './operators/routes';
import { eventRoutes } from './events/routes';
import { EVENT_WEBHOOKS } from './events/schemas';
import { OPERATION_LINKS } from './links';
import { webhookRoutes } from './webhooks/routes';
import { pinRoutes } from './pin/routes';
import { transferRoutes } from './transfer/routes';
import { complianceRoutes } from './compliance/routes';
import { assetRoutes } from './assets/routes';
import { securitiesRoutes } from './assets/securities-routes';
import { cexRoutes } from './cex/routes';
import { exchangeRoutes } from './exchange/routes';
import { testClockRoutes } from './test-clock/routes';
import { OPERATION_EXAMPLES } from './http/examples';
import { eventExample } from '../platform/event-examples';

/**
 * The OpenAPI document of these routes, with every event type as a webhook (an example payload each) and the links
 * between operations.
 */
export const apiDocument = (routes: RouteSpec[], serverUrl?: string) =>
  buildOpenApi(routes, {
    version: API_VERSION,
    serverUrl,
    webhooks: EVENT_WEBHOOKS.map((hook) => ({ ...hook, example: eventExample(hook.name) })),
    links: OPERATION_LINKS,
    examples: OPERATION_EXAMPLES,
  });

export function routeTable(deps: AppDeps, services: Services): RouteSpec[] {
  const { config, orm, temporal, encryption, tokens, networks } = deps;
  const s = services;
  const taskQueue = config.TEMPORAL_TASK_QUEUE;
  const uploadMaxBytes = config.UPLOAD_MAX_BYTES;
  const routes: RouteSpec[] = [];
  let openApi: unknown;
  routes.push(
    ...systemRoutes({
      orm,
      temporal,
      tokens,
      openApi: () => (openApi ??= apiDocument(routes, config.PUBLIC_BASE_URL)),
    }),
    ...problemRoutes(),
    ...registrationRoutes({
      uploadMaxBytes,
      registrations: s.registrations,
      pins: deps.pins,
      notices: s.notices,
      identityWindows: deps.identityWindows,
      identityAppReturnUrl: config.IDENTITY_PROVIDER_APP_RETURN_URL,
    }),
    ...authRoutes({ orm, encryption, tokens, devices: s.devices, signIns: s.signIns }),
    ...signInRoutes({ signIns: s.signIns, uploadMaxBytes }),
    ...identityCheckRoutes({ checks: s.identityChecks, uploadMaxBytes }),
    ...deviceRoutes({ devices: s.devices, backups: s.backups }),
    ...recoveryRoutes({ recoveries: s.recoveries }),
    ...accountRoutes({
      orm,
      temporal,
      taskQueue,
      encryption,
      passkeys: s.passkeys,
      uploadMaxBytes,
      emails: s.emails,
      payouts: s.payouts,
      sessions: deps.sessions,
    }),
    ...passkeyRoutes({ orm, encryption, passkeys: s.passkeys, actions: s.stepUpActions }),
    ...walletRoutes({ gas: s.gas, deployments: s.deployments }),
    ...transferKeyRoutes({ transferKeys: s.transferKeys }),
    ...keyRotationRoutes({ rotations: s.rotations }),
    ...didRoutes({ keys: s.didKeys }),
    ...credentialRoutes({ orm, encryption, temporal, taskQueue }),
    ...bankRoutes({ orm, verifications: s.bankVerifications }),
    ...bankConsentRoutes({ consents: s.bankConsents }),
    ...chargeRoutes({ charges: s.charges }),
    ...payoutRoutes({ orm, payouts: s.payouts }),
    ...transactionRoutes({ orm, networks }),
    ...pinRoutes({ pins: deps.pins, notices: s.notices }),
    ...transferRoutes({
      policy: s.policy,
      addressBook: s.addressBook,
      screening: s.screening,
      transfers: s.transfers,
      vasps: { trp: deps.travelRuleCounterparts, code: deps.codeVasps },
    }),
    ...assetRoutes({ orm, prices: deps.prices }),
    ...securitiesRoutes({ securities: deps.securities }),
    ...cexRoutes({ accounts: s.cexAccounts }),
    ...networkWalletRoutes({ networks, holdings: s.holdings, custody: s.custody }),
    ...exchangeRoutes({ holdings: s.holdings, engine: deps.quotes, swaps: s.swaps }),
    ...eventRoutes({ orm }),
    ...complianceRoutes({ inbound: s.inboundTravelRule, compliance: s.compliance }),
    ...webhookRoutes({ webhooks: s.webhooks }),
    ...testClockRoutes({ testClock: s.testClock }),
    ...operatorRoutes({
      operators: deps.operators,
      tokens,
      codec: s.operatorCodec,
      logger: deps.logger,
      sessionSeconds: config.OPERATOR_SESSION_SECONDS,
    }),
  );
  // The policies stay on their routes; approvals made ahead of a request (passkey challenges, identity checks) look
  // up what the named action takes here.
  for (const route of routes) if (route.stepUp) s.stepUpActions.declare(route.stepUp);
  return routes;
}
