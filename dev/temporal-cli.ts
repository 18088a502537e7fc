import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { TOOLS_BIN, buildTemporalBinaries } from './temporal-go';

export const LOCAL_TEMPORAL_CLI = join(TOOLS_BIN, 'temporal');

const onPath = (name: string): string | undefined => {
  const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() || undefined : undefined;
};

/**
 * The one place that finds the Temporal CLI (dev server with embedded UI), used by `npm start`, tests and CI:
 * TEMPORAL_CLI_PATH, then `temporal` on PATH, then .tools/bin/temporal, built with Go when missing (with the server:
 * dev/temporal-go.ts).
 */
export function resolveTemporalCli(
  options: { build: boolean; log?: (line: string) => void } = { build: true },
): string {
  const fromEnv = process.env.TEMPORAL_CLI_PATH;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`TEMPORAL_CLI_PATH points to ${fromEnv}, which does not exist`);
    return fromEnv;
  }
  const path = onPath('temporal');
  if (path) return path;
  if (existsSync(LOCAL_TEMPORAL_CLI)) return LOCAL_TEMPORAL_CLI;
  if (!options.build) throw new Error('Temporal CLI not found; run `npm run temporal:cli` to build it');
  buildTemporalBinaries(options.log);
  return LOCAL_TEMPORAL_CLI;
}

/** `npm run temporal:cli`: find or build the Temporal CLI and print where it is. */
if (require.main === module) console.log(resolveTemporalCli({ build: true, log: (line) => console.error(line) }));
