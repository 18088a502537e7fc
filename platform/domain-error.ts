/**
 * Refusals the domain names, raised by code below the API (amounts, quotes, DID keys, exchange grants). Each `type`
 * maps to exactly one HTTP problem in api/http/domain-problems.ts; nothing matches on error names or messages.
 */
export const DOMAIN_ERROR_TYPES = [
  'invalid-amount',
  'unknown-network',
  'unknown-token',
  'same-token',
  'no-route',
  'insufficient-liquidity',
  'exact-output-unsupported',
  'invalid-public-key',
  'cex-grant-refused',
  'user-operation-refused',
] as const;
export type DomainErrorType = (typeof DOMAIN_ERROR_TYPES)[number];

export class DomainError extends Error {
  constructor(
    readonly type: DomainErrorType,
    message: string,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}
