import { DomainError, type DomainErrorType } from '../../platform/domain-error';
import { HttpError } from './problems';

/** The one table from domain refusals to HTTP problems. */
const DOMAIN_PROBLEMS: Record<DomainErrorType, { status: number; title: string }> = {
  'invalid-amount': { status: 422, title: 'Unprocessable request' },
  'unknown-network': { status: 404, title: 'Unknown network' },
  'unknown-token': { status: 422, title: 'Unprocessable request' },
  'same-token': { status: 422, title: 'Unprocessable request' },
  'no-route': { status: 422, title: 'Unprocessable request' },
  'insufficient-liquidity': { status: 422, title: 'Unprocessable request' },
  'exact-output-unsupported': { status: 422, title: 'Unprocessable request' },
  'invalid-public-key': { status: 422, title: 'Unprocessable request' },
  'cex-grant-refused': { status: 422, title: 'Unprocessable request' },
  // The bundler's simulation refused the operation being prepared (its call would revert, a paymaster refusal).
  'user-operation-refused': { status: 422, title: 'The operation would fail' },
};

export function httpErrorFromDomain(error: unknown): HttpError | undefined {
  if (!(error instanceof DomainError)) return undefined;
  const { status, title } = DOMAIN_PROBLEMS[error.type];
  return new HttpError(status, error.type, title, error.message);
}
