import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { registerUser } from '../helpers/http';
import { callApi } from '../helpers/bank';
import { resolveSchemathesis } from '../helpers/schemathesis';

/** Where the whole Schemathesis report is kept (CI prints only our summary line). */
const REPORT = join(__dirname, '../../.data/schemathesis-report.txt');
const MAX_EXAMPLES = process.env.FUZZ_MAX_EXAMPLES ?? '25';
/** Fixed by default so CI runs the same cases; FUZZ_SEED picks others. */
const SEED = process.env.FUZZ_SEED ?? '20261122';

/**
 * Schemathesis against the running stack (PostgreSQL when configured, both chains, SOLANA), from the served OpenAPI
 * document, authenticated as a registered user: every check (server errors, status codes, headers and bodies as
 * documented, schema-violating requests refused, schema-valid ones accepted, unsupported methods, auth bypass) in
 * every phase (examples, coverage, fuzzing, stateful, which follows the document's links). The acceptance rules are
 * Schemathesis' own, except for the operations whose document names a refusal only the service can know
 * (schemathesis.toml); hooks.py gives each positive case a fresh Idempotency-Key, as an app does. Whatever it found is
 * also a regression test in its suite.
 */
describe('API fuzzing from the OpenAPI document (Schemathesis)', () => {
  let stack: TestStack;
  let st: string;
  beforeAll(async () => {
    st = resolveSchemathesis((line) => console.log(line));
    stack = await startTestStack(testDatabases().at(-1)!, { chains: true, solana: true });
  }, 600_000); // the first run installs Schemathesis from PyPI
  afterAll(async () => {
    await stack?.stop();
  });

  it('finds no failure with every check in every phase', async () => {
    const user = await registerUser(stack);
    // Some state to explore: a Solana wallet and a registered asset.
    await callApi(stack, '/v1/wallet/networks/SOLANA/wallet', user, { method: 'POST' });
    const args = [
      '--config-file',
      join(__dirname, 'schemathesis.toml'),
      'run',
      `${stack.apiUrl}/openapi.json`,
      '--header',
      `Authorization: Bearer ${user.accessToken}`,
      '--checks',
      'all',
      '--phases',
      'examples,coverage,fuzzing,stateful',
      '--max-examples',
      MAX_EXAMPLES,
      '--seed',
      SEED,
      '--workers',
      '2',
      '--max-failures',
      '50',
      '--no-color',
      // Closing the account or signing out ends the session every other case runs in (their own tests:
      // credentials.test.ts, new-device.test.ts).
      '--exclude-operation-id',
      'closeAccount',
      '--exclude-operation-id',
      'signOut',
    ];
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
      // Its cache and reports go to a scratch directory, not the repository.
      const child = spawn(st, args, {
        cwd: mkdtempSync(join(tmpdir(), 'schemathesis-')),
        env: { ...process.env, SCHEMATHESIS_HOOKS: join(__dirname, 'hooks.py'), FUZZ_OWN_DEVICE_ID: user.deviceId },
      });
      let text = '';
      child.stdout.on('data', (d: Buffer) => {
        text += d.toString();
      });
      child.stderr.on('data', (d: Buffer) => {
        text += d.toString();
      });
      child.on('close', (exitCode) => resolve({ code: exitCode, output: text }));
    });
    // The full report goes to a file: its closing line is pytest-style, which a reader of CI logs would take for a
    // pytest run of its own. Only our own one-line summary is printed.
    mkdirSync(dirname(REPORT), { recursive: true });
    writeFileSync(REPORT, output);
    const counts = output
      .split('\n')
      .filter((line) => /^\s*(API operations|Test cases|Test Phases|Failures|Errors|Warnings)\b/i.test(line))
      .map((l) => l.trim())
      .join('; ');
    console.log(`Schemathesis exit ${code} (${counts || 'no counts'}); full report in ${REPORT}`);
    if (code !== 0) throw new Error(`Schemathesis found failures (exit ${code}); full report in ${REPORT}`);
  }, 900_000);
});
