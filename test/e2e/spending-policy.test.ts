import { randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { upbitCandles } from '../helpers/prices';
import { call, type RegisteredUser } from '../helpers/http';
import { INCLUDED, fundedUser as fundedUserWith } from '../helpers/transfers';
import { callApi } from '../helpers/bank';
import { encryptPin, transferPin, transferRequest } from '../helpers/pin';
import { PriceReferenceEntity, TransferEntity, UserPinEntity } from '../../db/entities';
import { createOrm } from '../../db/orm';
import { loadConfig, WORKER_CONFIG_KEYS } from '../../platform/config';
import { composeWorker } from '../../worker/composition';

const ROOT = join(__dirname, '..', '..');

/** USDT is 1,400 won in the sandbox price feed, so values are exact: 500 USDT = 700,000 won. */
describe.each(testDatabases())(
  'spending policy on $name: transfer limits in won, deny by default beyond them',
  (database) => {
    let stack: TestStack;
    const PIN = '482915';
    const RECIPIENT = '0x000000000000000000000000000000000000dEaD';
    beforeAll(async () => {
      stack = await startTestStack(database, {
        chains: true,
        env: { TRANSFER_LIMIT_PER_TRANSFER_KRW: '1000000', TRANSFER_LIMIT_DAILY_KRW: '1500000' },
      });
    });
    afterAll(async () => {
      await stack?.stop();
    });
    afterEach(async () => {
      await call(`${stack.sandboxUrl}/_faults`, { method: 'DELETE' });
    });

    const fundedUser = async (): Promise<RegisteredUser> => (await fundedUserWith(stack, PIN)).user;
    const send = async (user: RegisteredUser, amount: string, pin = PIN) => {
      const fields = { to_address: RECIPIENT, network: 'ETHEREUM', token: 'USDT', amount };
      const key = randomUUID();
      return callApi(stack, '/api/v1/transfer/crypto/execute', user, {
        json: { ...fields, pin: await transferPin(stack, pin, fields, key) },
        key,
      });
    };
    const limits = async (user: RegisteredUser) => (await callApi(stack, '/api/v1/transfer/limits', user)).body;
    /** `npm run limits -- …` as an operator runs it, against this stack's database. */
    const limitsCommand = (...args: string[]) => {
      const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'api/transfer/limits-cli.ts'), ...args], {
        env: { PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: stack.config.DATABASE_URL },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (d: Buffer) => {
        output += d.toString();
      });
      child.stderr.on('data', (d: Buffer) => {
        output += d.toString();
      });
      return { output: () => output, exited: new Promise<number | null>((resolve) => child.once('exit', resolve)) };
    };

    it('passes under the limits, refuses over the per-transfer and the daily limit saying what would pass, and shows the usage', async () => {
      const user = await fundedUser();
      expect(await limits(user)).toMatchObject({
        per_transfer_krw: '1000000',
        daily_krw: '1500000',
        used_today_krw: '0',
        remaining_today_krw: '1500000',
      });
      expect((await send(user, '500')).body.status).toMatch(INCLUDED);
      expect(await limits(user)).toMatchObject({ used_today_krw: '700000', remaining_today_krw: '800000' });

      const tooBig = await send(user, '800', '000000'); // worth 1,120,000 won; the wrong PIN is never even tried
      expect([tooBig.status, tooBig.body.type]).toEqual([422, '/problems/limit-per-transfer']);
      expect(tooBig.body.detail).toContain('1,000,000 KRW');
      expect((await stack.orm.em.fork().findOneOrFail(UserPinEntity, { userId: user.userId })).failedAttempts).toBe(0);

      const overDaily = await send(user, '600'); // 840,000 won; 800,000 left today
      expect([overDaily.status, overDaily.body.type]).toEqual([422, '/problems/limit-daily']);
      expect(overDaily.body.detail).toContain('800,000 KRW left');
      expect((await send(user, '500')).body.status).toMatch(INCLUDED); // 700,000 fits
      expect(await limits(user)).toMatchObject({ used_today_krw: '1400000', remaining_today_krw: '100000' });
      expect(await stack.orm.em.fork().count(TransferEntity, { userId: user.userId })).toBe(2);
    });

    it('asks a transfer without a PIN for one (422 step-up-required naming what it must approve) only once the transfer passes its checks', async () => {
      const user = await fundedUser();
      const unapproved = (amount: string, key: string) =>
        callApi(stack, '/api/v1/transfer/crypto/execute', user, {
          json: { to_address: RECIPIENT, network: 'ETHEREUM', token: 'USDT', amount },
          key,
        });
      // Over the per-transfer limit: the limit's refusal, as with a PIN (the checks come first).
      const tooBig = await unapproved('800', randomUUID());
      expect([tooBig.status, tooBig.body.type]).toEqual([422, '/problems/limit-per-transfer']);
      // A transfer that would pass: the step-up says the request the PIN must name (before, 400 validation-error).
      const key = randomUUID();
      const asked = await unapproved('10', key);
      expect([asked.status, asked.body.type]).toEqual([422, '/problems/step-up-required']);
      const fields = { to_address: RECIPIENT, network: 'ETHEREUM', token: 'USDT', amount: '10' };
      expect(asked.body.stepUp).toEqual({ request: transferRequest(fields, key), accepts: [['pin']] });
      expect(await stack.orm.em.fork().count(TransferEntity, { userId: user.userId })).toBe(0);
      expect((await stack.orm.em.fork().findOneOrFail(UserPinEntity, { userId: user.userId })).failedAttempts).toBe(0);
      // The PIN bound to the request it named approves the same transfer sent again with it.
      const pin = await encryptPin(stack, PIN, { request: asked.body.stepUp.request });
      const sent = await callApi(stack, '/api/v1/transfer/crypto/execute', user, { json: { ...fields, pin }, key });
      expect([sent.status, sent.body.status]).toEqual([200, expect.stringMatching(INCLUDED)]);
    });

    it('lets only what fits through when transfers arrive at once', async () => {
      const user = await fundedUser();
      const answers = await Promise.all([send(user, '500'), send(user, '500'), send(user, '500')]);
      expect(answers.filter((a) => a.status === 200).length).toBe(2);
      expect(answers.filter((a) => a.status === 422).map((a) => a.body.type)).toEqual(['/problems/limit-daily']);
      expect(await limits(user)).toMatchObject({ used_today_krw: '1400000' });
    });

    it('makes no transfer without a price', async () => {
      const user = await fundedUser();
      await call(`${stack.sandboxUrl}/_faults/prices`, { method: 'PUT', json: { errorRate: 1, status: 503 } });
      const refused = await send(user, '1');
      expect([refused.status, refused.body.type]).toEqual([503, '/problems/price-unavailable']);
      expect(await stack.orm.em.fork().count(TransferEntity, { userId: user.userId })).toBe(0);
    });

    it('values nothing with a price answer that is malformed, stale, rounds to zero, jumps past the band or runs too long: 503, no transfer', async () => {
      const user = await fundedUser();
      const hour = Math.floor(Date.now() / 3_600_000);
      const answers: Array<[string, object]> = [
        ['malformed', { answer: { body: { points: 'none' } } }],
        [
          'a price that rounds to 0 won',
          {
            answer: {
              body: upbitCandles('KRW-USDT', [
                { hour: hour - 1, price: 0.001 },
                { hour: hour, price: 0.001 },
              ]),
            },
          },
        ],
        ['a negative price', { answer: { body: upbitCandles('KRW-USDT', [{ hour: hour, price: -1400 }]) } }],
        ['stale', { answer: { body: upbitCandles('KRW-USDT', [{ hour: hour - 5, price: 1400 }]) } }],
        ['from the future', { answer: { body: upbitCandles('KRW-USDT', [{ hour: hour + 3, price: 1400 }]) } }],
        [
          'a hundredfold drop in an hour',
          {
            answer: {
              body: upbitCandles('KRW-USDT', [
                { hour: hour - 1, price: 1400 },
                { hour: hour, price: 14 },
              ]),
            },
          },
        ],
        [
          'a drop from the last accepted price',
          { answer: { body: upbitCandles('KRW-USDT', [{ hour: hour, price: 14 }]) } },
        ],
        ['larger than the client reads', { bodyBytes: 6 * 1024 * 1024 }],
      ];
      // 800 USDT is 1,120,000 won at the real price, over the per-transfer limit: a bad price must not let it through.
      expect((await send(user, '800')).body.type).toBe('/problems/limit-per-transfer');
      for (const [what, fault] of answers) {
        await call(`${stack.sandboxUrl}/_faults/prices`, { method: 'PUT', json: fault });
        const refused = await send(user, '800');
        expect([what, refused.status, refused.body.type]).toEqual([what, 503, '/problems/price-unavailable']);
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
      expect(await stack.orm.em.fork().count(TransferEntity, { userId: user.userId })).toBe(0);
      await call(`${stack.sandboxUrl}/_faults`, { method: 'DELETE' });
      expect((await send(user, '800')).body.type).toBe('/problems/limit-per-transfer');
    });

    it('holds prices to a reference a run of answers cannot drag, shared by the API and the worker: a feed 19 % lower on each call is refused from its second answer', async () => {
      const user = await fundedUser();
      const hour = Math.floor(Date.now() / 3_600_000);
      const at = (h: number) => new Date(h * 3_600_000).toISOString();
      /** The compromised feed's nth answer: 19 % below its answer before, which it gives as the previous hour's. */
      const dragged = (n: number) => Math.round(1400 * 0.81 ** n * 100) / 100;
      const answer = (n: number) =>
        call(`${stack.sandboxUrl}/_faults/prices`, {
          method: 'PUT',
          json: {
            queryIncludes: 'market=KRW-USDT',
            answer: {
              body: upbitCandles('KRW-USDT', [
                { hour: hour - 1, price: dragged(n - 1) },
                { hour: hour, price: dragged(n) },
              ]),
            },
          },
        });
      // 900 USDT is 1,260,000 won at the real price: over the per-transfer limit at any price within the band of it.
      expect((await send(user, '900')).body.type).toBe('/problems/limit-per-transfer');
      await answer(1); // 1,134: within the band, still over the limit
      expect((await send(user, '900')).body.type).toBe('/problems/limit-per-transfer');
      for (let n = 2; n <= 5; n += 1) {
        await answer(n); // 918.54, 744.02, 602.66, 488.15 (900 USDT would fit the limit at each)
        const refused = await send(user, '900');
        expect([n, refused.status, refused.body.type]).toEqual([n, 503, '/problems/price-unavailable']);
        expect(refused.body.detail).toContain('from the reference 1400');
      }
      expect(await stack.orm.em.fork().count(TransferEntity, { userId: user.userId })).toBe(0);

      // The worker's price client (its own composition root and database connection) is held to the same reference.
      const workerOrm = await createOrm(stack.config.DATABASE_URL);
      const worker = composeWorker(loadConfig(stack.workerProcessEnv(), WORKER_CONFIG_KEYS), workerOrm);
      try {
        await answer(2);
        expect(await worker.prices.wonPrice('USDT')).toEqual({
          refused: expect.stringContaining('from the reference 1400'),
        });
        // A window later the reference follows the feed by one band (1,400 -> 1,120), not to where it points: 918.54
        // is then within the band, the next answer (744.02) is not, for the API too.
        await stack.orm.em
          .fork()
          .nativeUpdate(
            PriceReferenceEntity,
            { asset: 'USDT' },
            { setAt: new Date(Date.now() - 6 * 3_600_000 - 1000) },
          );
        expect(await worker.prices.wonPrice('USDT')).toEqual({ centi: 91854n, at: at(hour) });
        expect((await stack.orm.em.fork().findOneOrFail(PriceReferenceEntity, { asset: 'USDT' })).centi).toBe(112000n);
        await answer(3);
        const refused = await send(user, '900');
        expect([refused.status, refused.body.detail]).toEqual([
          503,
          expect.stringContaining('from the reference 1120'),
        ]);
      } finally {
        // The next valuation takes the real price as the reference again.
        await stack.orm.em.fork().nativeDelete(PriceReferenceEntity, { asset: 'USDT' });
        worker.close();
        await workerOrm.close();
      }
    });

    it('takes the limits an operator sets with npm run limits', async () => {
      const user = await fundedUser();
      const set = limitsCommand(user.userId, '3000000', '5000000');
      expect([await set.exited, set.output()]).toEqual([0, expect.any(String)]);
      expect(JSON.parse(set.output().trim().split('\n').at(-1)!)).toEqual({
        userId: user.userId,
        source: 'set for this user',
        perTransferKrw: '3000000',
        dailyKrw: '5000000',
        passkeyAboveKrw: '1000000',
      });
      expect((await send(user, '2000')).body.status).toMatch(INCLUDED); // 2,800,000 won
      expect(await limits(user)).toMatchObject({
        per_transfer_krw: '3000000',
        daily_krw: '5000000',
        used_today_krw: '2800000',
      });
      const reset = limitsCommand(user.userId, 'default');
      expect(await reset.exited).toBe(0);
      expect(await limits(user)).toMatchObject({ per_transfer_krw: '1000000', daily_krw: '1500000' });
      const bad = limitsCommand(user.userId, '-5', '10');
      expect(await bad.exited).toBe(1);
      expect(bad.output()).toContain('whole number of won');
    });
  },
);
