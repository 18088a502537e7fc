import Koa from 'koa';
import type { AddressInfo } from 'node:net';
import { DriverException } from '@mikro-orm/core';
import { errorHandler } from '../../api/http/error-handler';
import { UserOperationRejected } from '../../integrations/evm/bundler-client';
import { ProviderUnavailable } from '../../integrations/provider-http';

/** Errors become problems in one place: a database that went away is a 503 the client may retry, a bug a 500. */
describe('error handler', () => {
  const answer = async (error: Error): Promise<number> => {
    const app = new Koa();
    app.use(errorHandler());
    app.use(() => {
      throw error;
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      return (await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/x`)).status;
    } finally {
      server.close();
    }
  };

  it('answers 503 for a connection the database closed, including a transaction knex found already complete', async () => {
    expect(
      await answer(
        new DriverException(new Error('Transaction query already complete, run with DEBUG=knex:tx for more info')),
      ),
    ).toBe(503);
    expect(
      await answer(
        Object.assign(new Error('insert failed'), { cause: new Error('Connection terminated unexpectedly') }),
      ),
    ).toBe(503);
    expect(
      await answer(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })),
    ).toBe(503);
    expect(await answer(new TypeError('x is undefined'))).toBe(500);
  });

  it("answers 422 for an operation the bundler's simulation refuses, and 503 for a bundler that is down", async () => {
    expect(
      await answer(
        new UserOperationRejected('UserOperation reverted during simulation with reason: registry: bad', -32521),
      ),
    ).toBe(422);
    expect(await answer(new ProviderUnavailable('bundler http://127.0.0.1:1/rpc did not answer'))).toBe(503);
  });
});
