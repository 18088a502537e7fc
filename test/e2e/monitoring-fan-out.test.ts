import { randomBytes } from 'node:crypto';
import type { Orm } from '../../db/orm';
import { TransferEntity, type Transfer } from '../../db/entities';
import { Monitoring } from '../../api/compliance/monitoring';
import type { TransferIntent } from '../../api/transfer/intent';
import { testDatabases } from '../helpers/databases';
import { useMigratedOrm } from '../helpers/orm';
import { unreachableEthereum } from '../helpers/networks';

const DAY_MS = 24 * 3600_000;
const NOW = Date.parse('2026-12-04T03:00:00Z');

/**
 * The fan-out rule reads, in the database, which of the day's recipients were paid before the day: a recipient paid
 * before is not new, a failed transfer pays no one, and the rule no longer reads the user's whole history to know it.
 */
describe.each(testDatabases())('monitoring fan-out on $name', (kind) => {
  const migrated = useMigratedOrm(kind);
  let orm: Orm;
  const monitoring = () =>
    new Monitoring({
      orm,
      rules: {
        largeKrw: 10_000_000n,
        structuringKrw: 1_000n,
        fanOutRecipients: 3,
        newRecipientMinutes: 0,
        newDeviceHours: 0,
      },
      now: () => NOW,
    });
  const network = unreachableEthereum().get('ETHEREUM')!;
  const address = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;

  beforeAll(() => {
    orm = migrated.orm();
  });

  const paid = async (userId: string, to: string, msAgo: number, status: Transfer['status'] = 'confirmed') => {
    const em = orm.em.fork();
    em.create(TransferEntity, {
      transferId: `tr_${randomBytes(6).toString('hex')}`,
      userId,
      networkId: 'ETHEREUM',
      token: 'ETH',
      decimals: 18,
      fromAddress: address(1),
      toAddress: to,
      amount: '1',
      valueKrw: 5_000n,
      status,
      createdAt: new Date(NOW - msAgo),
    });
    await em.flush();
  };
  const review = (userId: string, to: string) =>
    monitoring().review({
      userId,
      network,
      recipient: to,
      token: 'ETH',
      decimals: 18,
      amount: 1n,
      valueKrw: 5_000n,
      requested: { network: 'ETHEREUM', to_address: to, token: 'ETH', amount: '1' },
    } as TransferIntent);

  it('holds the third new recipient of the day', async () => {
    const userId = `usr_${randomBytes(4).toString('hex')}`;
    await paid(userId, address(10), 3600_000);
    await paid(userId, address(11), 7200_000);
    expect((await review(userId, address(12))).review?.kind).toBe('fan_out');
  });

  it('does not count recipients paid before the day, nor transfers that failed', async () => {
    const userId = `usr_${randomBytes(4).toString('hex')}`;
    await paid(userId, address(20), 3 * DAY_MS);
    await paid(userId, address(20), 3600_000); // paid before: not new today
    await paid(userId, address(21), 3600_000, 'failed'); // paid no one
    await paid(userId, address(22), 7200_000);
    expect(await review(userId, address(23))).toEqual({}); // new today: 22 and 23
    await paid(userId, address(24), 600_000);
    expect((await review(userId, address(23))).review?.detail).toContain('3 new recipients');
  });

  it('holds nothing when this recipient itself was paid before the day', async () => {
    const userId = `usr_${randomBytes(4).toString('hex')}`;
    await paid(userId, address(30), 2 * DAY_MS, 'failed'); // a transfer before the day counts, whatever its outcome
    for (const n of [31, 32, 33]) await paid(userId, address(n), 3600_000);
    expect(await review(userId, address(30))).toEqual({});
  });
});
