import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The Temporal binaries the project runs, built with Go from one module (dev/temporal-go/go.mod, its `tool` lines):
 * the CLI (`temporal`, the dev server of npm start and the tests), the production server (`server`) and its schema
 * tool (`sql`). One module means one set of dependency versions, so the packages the CLI and the server share (the CLI
 * embeds that server) compile once; built apart, each at its own go.mod's versions, they compiled twice.
 */
const MODULE_DIR = join(__dirname, 'temporal-go');
export const TOOLS_BIN = join(__dirname, '..', '.tools', 'bin');

/** The version dev/temporal-go/go.mod requires of `modulePath` (the one place the Temporal versions are written). */
export function temporalModuleVersion(modulePath: string): string {
  const goMod = readFileSync(join(MODULE_DIR, 'go.mod'), 'utf8');
  const escaped = modulePath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const found = new RegExp(`^\\s*(?:require\\s+)?${escaped}\\s+(v\\S+)`, 'm').exec(goMod);
  if (!found) throw new Error(`dev/temporal-go/go.mod requires no version of ${modulePath}`);
  return found[1]!;
}

/** Builds the three binaries into .tools/bin (`go install tool`; minutes on a machine without Go's caches). */
export function buildTemporalBinaries(log: (line: string) => void = () => {}): void {
  if (spawnSync('go', ['version']).status !== 0)
    throw new Error(
      'the Temporal binaries are built with Go, which is not installed: install Go, or set TEMPORAL_CLI_PATH to a temporal binary',
    );
  log(
    `building the Temporal CLI ${temporalModuleVersion('github.com/temporalio/cli')} and server ${temporalModuleVersion('go.temporal.io/server')} with Go into .tools/bin (once; takes a few minutes)...`,
  );
  execFileSync('go', ['install', 'tool'], {
    cwd: MODULE_DIR,
    env: { ...process.env, GOBIN: TOOLS_BIN, GOFLAGS: '-mod=readonly' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

/** `tsx dev/temporal-go.ts`: builds them (what CI does beside its other set-up). */
if (require.main === module) buildTemporalBinaries((line) => console.error(line));
