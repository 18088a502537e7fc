import { NamespaceNotFoundError, ServiceError, WorkflowFailedError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure, RetryState } from '@temporalio/common';
import { httpErrorFromWorkflow } from '../../api/http/workflow-errors';
import { PROVIDER_REQUEST_INVALID } from '../../platform/failures';

describe('Temporal client errors as HTTP answers', () => {
  const grpc = (code: number) =>
    new ServiceError('call failed', { cause: Object.assign(new Error(`grpc ${code}`), { code }) });

  it('answers 503 with Retry-After while the Temporal service cannot serve, so a client retries the same request', () => {
    for (const error of [new NamespaceNotFoundError('default'), grpc(14), grpc(4), grpc(8)]) {
      const answer = httpErrorFromWorkflow(error);
      expect([answer?.status, answer?.type, answer?.headers['retry-after']]).toEqual([503, 'service-unavailable', '5']);
    }
  });

  it('answers 503 when an activity failed, not retried, on a request of ours a provider refuses (for an operator)', () => {
    const refused = ApplicationFailure.create({
      type: PROVIDER_REQUEST_INVALID,
      nonRetryable: true,
      message: 'CLOVA OCR refused our request body (0011 Request body invalid.)',
    });
    const activity = new ActivityFailure('failed', 'renewKyc', '1', RetryState.NON_RETRYABLE_FAILURE, 'id', refused);
    const answer = httpErrorFromWorkflow(new WorkflowFailedError('failed', activity, RetryState.NON_RETRYABLE_FAILURE));
    expect([answer?.status, answer?.type, answer?.headers['retry-after']]).toEqual([503, 'service-unavailable', '300']);
  });

  it('leaves other service errors to the generic handler', () => {
    expect(httpErrorFromWorkflow(grpc(3))).toBeUndefined(); // INVALID_ARGUMENT: our bug, a 500
  });
});
