import { randomUUID } from 'node:crypto';
import { Wallet } from 'ethers';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { call, registerUser } from '../helpers/http';
import { callApi } from '../helpers/bank';
import { transferPin, type TransferFields } from '../helpers/pin';
import { INCLUDED, fundedUser } from '../helpers/transfers';
import { waitFor } from '../helpers/processes';
import { newOperatorToken, operatorTokenHash } from '../../api/operators/operators';
import { TestClockEntity } from '../../db/entities';

const PIN = '604218';
const DAY = 86_400;

/**
 * The test clock: an operator moves the service's clock and the local chains a day forward, and what the rules
 * read moves with it: the Korean day's used limit starts again, a new recipient's cooling-off ends, the chain's next
 * block carries the moved time. Moves are once each, only forward, and refused where the clock is off.
 */
describe.each(testDatabases())('the test clock on $name', (database) => {
  const operatorToken = newOperatorToken();
  const asOperator = { authorization: `Bearer ${operatorToken}` };
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack(database, {
      chains: true,
      env: {
        TEST_CLOCK_ENABLED: 'true',
        OPERATOR_TOKENS: JSON.stringify({ qa: operatorTokenHash(operatorToken) }),
        ADDRESS_COOLING_OFF_SECONDS: String(DAY),
      },
    });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('moves a day: the used daily limit starts again, a cooling-off ends, the chain keeps the moved time', async () => {
    const { user } = await fundedUser(stack, PIN);
    const before = await call(`${stack.apiUrl}/v1/test-clock`, { headers: asOperator });
    expect(before.body).toMatchObject({ enabled: true, offsetSeconds: 0 });

    // A recipient added now cools off for a day; a transfer to a known one today counts toward today's limit.
    const coolingTo = Wallet.createRandom().address;
    const added = await callApi(stack, '/api/v1/transfer/address-book', user, {
      json: { network: 'ETHEREUM', address: coolingTo },
    });
    expect(added.body.status).toBe('cooling_off');
    const fields: TransferFields = { to_address: coolingTo, network: 'ETHEREUM', token: 'USDT', amount: '10' };
    const key = randomUUID();
    const refused = await callApi(stack, '/api/v1/transfer/crypto/execute', user, {
      json: { ...fields, pin: await transferPin(stack, PIN, fields, key) },
      key,
    });
    expect(refused.body.type).toBe('/problems/recipient-cooling-off');

    const moved = await call(`${stack.apiUrl}/v1/test-clock/advance`, { headers: asOperator, json: { seconds: DAY } });
    expect(moved.status).toBe(200);
    expect(moved.body.offsetSeconds).toBe(DAY);
    expect(new Date(moved.body.now).getTime()).toBeGreaterThan(Date.now() + (DAY - 60) * 1000);
    // Each local chain's latest block carries the moved time. Asked of the node itself: ethers answers a request
    // made in the last 250 ms from its cache, which a block read just before the move can be.
    for (const chain of stack.chains) {
      const block = (await chain.provider.send('eth_getBlockByNumber', ['latest', false])) as { timestamp: string };
      expect(Number(block.timestamp)).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) + DAY - 60);
    }

    // The cooling-off has passed: the recipient is trusted and the transfer goes.
    const book = await callApi(stack, '/api/v1/transfer/address-book', user);
    expect(book.body.items.find((i: { address: string }) => i.address === coolingTo)).toMatchObject({
      status: 'trusted',
    });
    const key2 = randomUUID();
    const sent = await callApi(stack, '/api/v1/transfer/crypto/execute', user, {
      json: { ...fields, pin: await transferPin(stack, PIN, fields, key2) },
      key: key2,
    });
    expect([200, 202]).toContain(sent.status);
    const transferId = sent.body.transfer_id as string;
    await waitFor(
      async () => INCLUDED.test((await callApi(stack, `/api/v1/transfer/crypto/${transferId}`, user)).body.status),
      60_000,
      'the transfer',
    );
    const usedNow = BigInt((await callApi(stack, '/api/v1/transfer/limits', user)).body.used_today_krw);
    expect(usedNow).toBeGreaterThan(0n);

    // Another day: that transfer was yesterday's.
    const again = await call(`${stack.apiUrl}/v1/test-clock/advance`, { headers: asOperator, json: { seconds: DAY } });
    expect(again.body.offsetSeconds).toBe(2 * DAY);
    expect((await callApi(stack, '/api/v1/transfer/limits', user)).body.used_today_krw).toBe('0');
    const stored = await stack.orm.em.fork().findOneOrFail(TestClockEntity, { id: 'clock' });
    expect(stored.offsetMs).toBe(2 * DAY * 1000);

    // The identity provider keeps its own time: a pass token it issues now is good two days ahead of it (its expiry is
    // read on real time, as it was stamped; before, every registration after a move was refused 401 invalid-pass-token).
    expect((await registerUser(stack)).userId).toMatch(/^usr_/);
  });

  it('moves once for a request retried with the same Idempotency-Key', async () => {
    const before = (await call(`${stack.apiUrl}/v1/test-clock`, { headers: asOperator })).body.offsetSeconds as number;
    const key = randomUUID();
    const move = () =>
      call(`${stack.apiUrl}/v1/test-clock/advance`, {
        headers: { ...asOperator, 'idempotency-key': key },
        json: { seconds: 3600 },
      });
    const first = await move();
    const again = await move();
    expect(first.body.offsetSeconds).toBe(before + 3600);
    expect(again.body).toEqual(first.body);
    expect((await call(`${stack.apiUrl}/v1/test-clock`, { headers: asOperator })).body.offsetSeconds).toBe(
      before + 3600,
    );
    const otherBody = await call(`${stack.apiUrl}/v1/test-clock/advance`, {
      headers: { ...asOperator, 'idempotency-key': key },
      json: { seconds: 60 },
    });
    expect(otherBody.status).toBe(422);
  });

  it('moves only forward, by a whole number of seconds, and only for operators', async () => {
    for (const seconds of [0, -60, 1.5, 'a day', 401 * DAY]) {
      const refused = await call(`${stack.apiUrl}/v1/test-clock/advance`, { headers: asOperator, json: { seconds } });
      expect(refused.status).toBe(400);
    }
    const anonymous = await call(`${stack.apiUrl}/v1/test-clock/advance`, { json: { seconds: 60 } });
    expect(anonymous.status).toBe(401);
  });
});
