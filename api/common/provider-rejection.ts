import { ApplicationFailure } from '@temporalio/common';
import { PROVIDER_REJECTED } from '../../platform/failures';

/** A provider's 4xx (integrations/provider-http.ts): the caller's input, not an outage. */
export const isProviderRejection = (error: unknown): boolean =>
  error instanceof ApplicationFailure && error.type === PROVIDER_REJECTED;
