/**
 * The OpenAPI document without a running service: the route table is data (paths, schemas, statuses), so it is built
 * here with every service left unavailable (any use throws) and the settings' defaults. `npm run client:generate`
 * writes it to clients/typescript/openapi.json; the running service answers the same document at /openapi.json
 * (with its PUBLIC_BASE_URL as the server).
 */
import type { AppDeps } from './deps';
import { buildServices } from './services';
import { apiDocument, routeTable } from './route-table';
import { API_CONFIG_KEYS, loadConfig } from '../platform/config';

/** The settings that have no default: placeholders, read by no route's declaration. */
const REQUIRED_SETTINGS = [
  'DATABASE_URL',
  'JWT_PRIVATE_JWK',
  'DATA_ENCRYPTION_KEY',
  'PASS_CALLBACK_API_KEY',
  'IDENTITY_PROVIDER_URL',
  'IDENTITY_PROVIDER_CLIENT_SECRET',
  'RECOVERY_ADDRESS',
  'BANK_API_URL',
  'BANK_CLIENT_ID',
  'BANK_CLIENT_SECRET',
  'BANK_INSTITUTION_CODE',
  'PIN_ENCRYPTION_JWK',
  'PRICE_FEED_URL',
  'SECURITIES_API_URL',
  'CEX_API_URL',
  'CEX_CLIENT_SECRET',
] as const;
const PLACEHOLDERS: Record<string, string> = {
  DATABASE_URL: 'sqlite::memory:',
  RECOVERY_ADDRESS: '0x0000000000000000000000000000000000000001',
  DATA_ENCRYPTION_KEY: Buffer.alloc(32).toString('base64'),
  BANK_INSTITUTION_CODE: 'M000000000',
};

/** A dependency the document does not need: reading anything from it is a bug in this module, said as such. */
const unavailable = (name: string): never =>
  new Proxy(
    {},
    {
      get: (_target, property) => {
        throw new Error(`${name}.${String(property)} is not available while exporting the OpenAPI document`);
      },
    },
  ) as never;

export function offlineRoutes() {
  const env: Record<string, string> = {};
  for (const key of REQUIRED_SETTINGS)
    env[key] = PLACEHOLDERS[key] ?? (key.endsWith('_URL') ? 'http://127.0.0.1:1' : 'document-only-placeholder');
  const config = loadConfig(env, API_CONFIG_KEYS);
  const deps: AppDeps = {
    config,
    transferSignerCaps: {},
    travelRuleCounterparts: [],
    codeVasps: [],
    orm: unavailable('orm'),
    temporal: unavailable('temporal'),
    logger: unavailable('logger'),
    encryption: unavailable('encryption'),
    networks: unavailable('networks'),
    tokens: unavailable('tokens'),
    pins: unavailable('pins'),
    notices: unavailable('notices'),
    quotes: unavailable('quotes'),
    swapLimits: unavailable('swapLimits'),
    rateLimits: unavailable('rateLimits'),
    metrics: unavailable('metrics'),
    providers: unavailable('providers'),
    solanaChains: unavailable('solanaChains'),
    identity: unavailable('identity'),
    bank: unavailable('bank'),
    prices: unavailable('prices'),
    securities: unavailable('securities'),
    cex: unavailable('cex'),
    exchanges: unavailable('exchanges'),
    sanctions: unavailable('sanctions'),
    operators: unavailable('operators'),
  };
  return routeTable(deps, buildServices(deps));
}

/** The document the client is generated from: no servers (an app names its base URL). */
export const offlineOpenApi = () => apiDocument(offlineRoutes());
