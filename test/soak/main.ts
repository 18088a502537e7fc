/**
 * `npm run soak`: the money soak (test/soak/soak.ts). SOAK_SEED (printed; the same seed replays the same schedule of
 * operations and faults), SOAK_SECONDS (180), SOAK_PEOPLE (12), SOAK_FAULT_GAP_SECONDS (8: a fault every 4-12 s), SOAK_SETTLE_SECONDS (240), SOAK_REPORT_DIR
 * (.data/soak). Needs the machine's PostgreSQL binaries (as `bash .ci/run` installs them); starts everything else.
 * Exits 1 when an invariant is violated.
 */
import { readFileSync } from 'node:fs';
import { runSoak, soakOptionsFromEnv } from './soak';

const log = (line: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${line}`);

// solc (loaded with the contracts' artifacts) makes any stray rejection fatal; the soak notes it and goes on, so that
// it still stops every process it started and writes its report.
process.removeAllListeners('unhandledRejection');
process.on('unhandledRejection', (reason) => log(`unhandled rejection: ${String(reason)}`));

runSoak(soakOptionsFromEnv(log))
  .then((result) => {
    process.stdout.write(readFileSync(result.reportPath, 'utf8'));
    process.exit(result.holds ? 0 : 1);
  })
  .catch((error: unknown) => {
    console.error(error);
    process.exit(2);
  });
