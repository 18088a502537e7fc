import pino, { type Logger } from 'pino';

export type { Logger };

/** Paths that may carry secrets or PII; pino replaces them before a line is written. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers["x-pass-token"]',
  'req.headers.cookie',
  '*.passToken',
  '*.encryptedMnemonic',
  '*.encryptedDerivationPaths',
  '*.ci',
  '*.di',
  '*.pin',
  '*.password',
  '*.refresh_token',
  '*.access_token',
  '*.privateKey',
  '*.idCardImage',
  // A broker's key pair (POST /api/v1/securities/verify, KIS's headers) and an exchange's (POST /v1/asset/cex-accounts),
  // at the top, one level down, and in a request's body or headers.
  ...[
    'app_secret',
    'appSecret',
    'appsecret',
    'app_key',
    'appKey',
    'appkey',
    'secretKey',
    'accessKey',
    'secret_key',
    'access_key',
  ].flatMap((key) => [key, `*.${key}`, `*.body.${key}`, `*.headers.${key}`, `req.body.${key}`]),
];

export function createLogger(options: { level: string; name: string; destination?: pino.DestinationStream }): Logger {
  return pino(
    { level: options.level, name: options.name, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } },
    options.destination,
  );
}
