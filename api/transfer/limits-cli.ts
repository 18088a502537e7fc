/**
 * Operator command: a user's crypto transfer limits, in won.
 *   npm run limits -- <userId>                             show the limits in force
 *   npm run limits -- <userId> <perTransferKrw> <dailyKrw> [<passkeyAboveKrw>]
 *                                                         set them (without the last, the default passkey threshold)
 *   npm run limits -- <userId> default                     back to TRANSFER_LIMIT_* defaults
 * Reads DATABASE_URL from the environment; in the embedded stack it falls back to .data/dev.env written by `npm start`.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../platform/config';
import { readEnvFile } from '../../platform/env-file';
import { createOrm } from '../../db/orm';
import { SpendingLimitsEntity, UserEntity } from '../../db/entities';
import { clock } from '../../platform/clock';

const USAGE = 'usage: npm run limits -- <userId> [<perTransferKrw> <dailyKrw> [<passkeyAboveKrw>] | default]';

async function main(): Promise<void> {
  const [userId, perTransfer, daily, passkeyAbove] = process.argv.slice(2);
  if (!userId) throw new Error(USAGE);
  const devEnv = join(__dirname, '..', '..', '.data', 'dev.env');
  const env =
    !process.env.DATABASE_URL && existsSync(devEnv) ? { ...readEnvFile(devEnv), ...process.env } : process.env;
  const config = loadConfig(env, [
    'DATABASE_URL',
    'TRANSFER_LIMIT_PER_TRANSFER_KRW',
    'TRANSFER_LIMIT_DAILY_KRW',
    'TRANSFER_PASSKEY_ABOVE_KRW',
  ]);
  const orm = await createOrm(config.DATABASE_URL, { requireCurrentSchema: true });
  try {
    const em = orm.em.fork();
    if (!(await em.findOne(UserEntity, { id: userId }))) throw new Error(`no user ${userId}`);
    if (perTransfer === 'default') {
      await em.nativeDelete(SpendingLimitsEntity, { userId });
    } else if (perTransfer !== undefined) {
      const won = (text: string | undefined, name: string, min = 1) => {
        if (!text || !/^\d{1,16}$/.test(text) || BigInt(text) < BigInt(min))
          throw new Error(`${name} must be a whole number of won (${min} or more)\n${USAGE}`);
        return BigInt(text);
      };
      const limits = {
        perTransferKrw: won(perTransfer, 'perTransferKrw'),
        dailyKrw: won(daily, 'dailyKrw'),
        passkeyAboveKrw: passkeyAbove === undefined ? null : won(passkeyAbove, 'passkeyAboveKrw', 0),
      };
      if (limits.perTransferKrw > limits.dailyKrw) throw new Error('perTransferKrw cannot exceed dailyKrw');
      await em.upsert(SpendingLimitsEntity, { userId, ...limits, updatedAt: clock.date() });
    }
    const row = await orm.em.fork().findOne(SpendingLimitsEntity, { userId });
    console.log(
      JSON.stringify({
        userId,
        source: row ? 'set for this user' : 'defaults',
        perTransferKrw: String(row?.perTransferKrw ?? config.TRANSFER_LIMIT_PER_TRANSFER_KRW),
        dailyKrw: String(row?.dailyKrw ?? config.TRANSFER_LIMIT_DAILY_KRW),
        passkeyAboveKrw: String(row?.passkeyAboveKrw ?? config.TRANSFER_PASSKEY_ABOVE_KRW),
      }),
    );
  } finally {
    await orm.close();
  }
}

main().catch((error) => {
  console.error(error.message ?? error);
  process.exit(1);
});
