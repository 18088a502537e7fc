import { NamespaceNotFoundError, ServiceError } from '@temporalio/client';
import { httpErrorFromWorkflow } from '../../api/http/workflow-errors';

describe('Temporal client errors as HTTP answers', () => {
  const grpc = (code: number) =>
    new ServiceError('call failed', { cause: Object.assign(new Error(`grpc ${code}`), { code }) });

  it('answers 503 with Retry-After while the Temporal service cannot serve, so a client retries the same request', () => {
    for (const error of [new NamespaceNotFoundError('default'), grpc(14), grpc(4), grpc(8)]) {
      const answer = httpErrorFromWorkflow(error);
      expect([answer?.status, answer?.type, answer?.headers['retry-after']]).toEqual([503, 'service-unavailable', '5']);
    }
  });

  it('leaves other service errors to the generic handler', () => {
    expect(httpErrorFromWorkflow(grpc(3))).toBeUndefined(); // INVALID_ARGUMENT: our bug, a 500
  });
});
