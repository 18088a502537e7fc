import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The Schemathesis version the fuzz suite runs (from PyPI). */
export const SCHEMATHESIS_VERSION = '4.32.5';
const ROOT = join(__dirname, '../..');
const VENV = join(ROOT, '.tools/schemathesis');

/**
 * The `st` command: SCHEMATHESIS_PATH, else .tools/schemathesis (a virtualenv), created with the newest Python 3.10+
 * found and filled from PyPI the first time. Like the Temporal CLI, nothing needs installing by hand.
 */
export function resolveSchemathesis(log: (line: string) => void = () => undefined): string {
  if (process.env.SCHEMATHESIS_PATH) return process.env.SCHEMATHESIS_PATH;
  const st = join(VENV, 'bin/st');
  const installed = () => {
    try {
      return execFileSync(st, ['--version'], { encoding: 'utf8' }).includes(SCHEMATHESIS_VERSION);
    } catch {
      return false;
    }
  };
  if (existsSync(st) && installed()) return st;
  // Newest first: Python 3.11's parser can fail inside Hypothesis on Schemathesis's large modules, 3.12+ does not.
  const pyenv = join(process.env.PYENV_ROOT ?? join(homedir(), '.pyenv'), 'versions');
  const pyenvPythons = existsSync(pyenv)
    ? readdirSync(pyenv)
        .filter((v) => /^3\.\d+\.\d+$/.test(v))
        .sort((a, b) => b.localeCompare(a, undefined, { numeric: true }))
        .map((v) => join(pyenv, v, 'bin/python3'))
    : [];
  const python = ['python3.13', 'python3.12', ...pyenvPythons, 'python3.11', 'python3.10', 'python3'].find(
    (candidate) => {
      try {
        return /Python 3\.(1\d)/.test(
          execFileSync(candidate, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }),
        );
      } catch {
        return false;
      }
    },
  );
  if (!python) throw new Error('Schemathesis needs Python 3.10 or newer (python3 on PATH)');
  log(`installing schemathesis ${SCHEMATHESIS_VERSION} into .tools/schemathesis with ${python}`);
  execFileSync(python, ['-m', 'venv', '--clear', VENV], { stdio: 'inherit' });
  execFileSync(
    join(VENV, 'bin/pip'),
    ['install', '--quiet', '--disable-pip-version-check', `schemathesis==${SCHEMATHESIS_VERSION}`],
    { stdio: 'inherit' },
  );
  if (!installed()) throw new Error(`schemathesis ${SCHEMATHESIS_VERSION} did not install into ${VENV}`);
  return st;
}
