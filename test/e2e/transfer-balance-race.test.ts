import { Wallet, parseEther } from 'ethers';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { bundlerDebug, executeTransfer, fundedUser, untilIncluded } from '../helpers/transfers';
import { waitFor } from '../helpers/processes';
import { TransferEntity } from '../../db/entities';

const postgres = testDatabases().find((kind) => kind.name === 'postgresql');

/**
 * A transfer's balance check against one that lands while it runs. The check counts the chain's balance and the
 * transfers still in flight, under the account's lock; the worker records a landed transfer confirmed without that
 * lock. On PostgreSQL that can happen between the check's two reads (on SQLite the check's transaction holds the
 * whole database, so the worker waits), so a landed transfer must be counted in one of them, never in neither.
 */
(postgres ? describe : describe.skip)('a transfer checked while another lands (PostgreSQL)', () => {
  let stack: TestStack;
  const PIN = '482915';
  beforeAll(async () => {
    stack = await startTestStack(postgres!, { chains: true, env: { TRANSFER_WAIT_SECONDS: '20' } });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('counts a transfer that lands between the balance read and the in-flight read: in one, never in neither', async () => {
    const { user, account } = await fundedUser(stack, PIN, '0'); // 1 ETH
    const chain = stack.chains[0]!;
    const [first, second] = [Wallet.createRandom().address, Wallet.createRandom().address];
    const send = (to: string) =>
      executeTransfer(stack, user, PIN, { to_address: to, network: 'ETHEREUM', token: 'ETH', amount: '0.6' });
    // The first transfer waits in the bundler's mempool: signed, handed over, in flight, not on chain.
    await bundlerDebug(chain, 'debug_bundler_setBundlingMode', ['manual']);
    try {
      const pending = send(first);
      await waitFor(
        async () =>
          ((await bundlerDebug(chain, 'debug_bundler_dumpMempool', [chain.entryPoint])) as unknown[]).length === 1,
        30_000,
        'the first operation in the bundler',
      );
      // The second one's read of the account's balance gets the chain before the first lands; the answer reaches the
      // api only once the first has landed and the worker has recorded it confirmed (no longer in flight).
      let held: unknown = 'the balance read was never held';
      chain.proxy.hold = {
        match: (body) => body.includes('"eth_getBalance"') && body.toLowerCase().includes(account.toLowerCase()),
        until: async () => {
          try {
            await bundlerDebug(chain, 'debug_bundler_sendBundleNow');
            await waitFor(
              async () =>
                (await stack.orm.em.fork().count(TransferEntity, {
                  toAddress: first,
                  status: { $in: ['confirmed', 'finalized'] },
                })) === 1,
              12_000,
              'the first transfer recorded confirmed',
            );
            held = 'landed';
          } catch (error) {
            held = error;
          }
        },
      };
      const refused = await send(second);
      expect(held).toBe('landed');
      // 1 ETH, 0.6 of it sent: 0.4 left, whichever read counted the 0.6.
      expect([refused.status, refused.body.type]).toEqual([422, '/problems/insufficient-balance']);
      expect(refused.body.detail).toMatch(/^Available 0\.4 ETH/);
      await untilIncluded(stack, user, (await pending).body.transfer_id, 'the first transfer', 60_000);
    } finally {
      chain.proxy.hold = null;
      await bundlerDebug(chain, 'debug_bundler_setBundlingMode', ['auto']);
    }
    expect(await stack.orm.em.fork().count(TransferEntity, { toAddress: second })).toBe(0);
    expect(await chain.provider.getBalance(first)).toBe(parseEther('0.6'));
    expect(await chain.provider.getBalance(account)).toBe(parseEther('0.4'));
  });
});
