import { join } from 'node:path';
import { answers, pythonTool } from './python-tools';

/** The Schemathesis version the fuzz suite runs (from PyPI). */
export const SCHEMATHESIS_VERSION = '4.32.5';

/**
 * The `st` command: SCHEMATHESIS_PATH, else .tools/schemathesis (a virtualenv), created with the newest Python 3.10+
 * found and filled from PyPI the first time. Like the Temporal CLI, nothing needs installing by hand.
 */
export function resolveSchemathesis(log: (line: string) => void = () => undefined): string {
  if (process.env.SCHEMATHESIS_PATH) return process.env.SCHEMATHESIS_PATH;
  const venv = pythonTool(
    'schemathesis',
    `schemathesis==${SCHEMATHESIS_VERSION}`,
    (dir) => answers(join(dir, 'bin/st'), ['--version'], SCHEMATHESIS_VERSION),
    log,
  );
  return join(venv, 'bin/st');
}
