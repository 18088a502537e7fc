import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');

/**
 * The newest Python 3.10+ found, 3.13 and 3.12 (and pyenv's, newest first) before 3.11 and 3.10: Python 3.11's parser
 * can fail inside Hypothesis on Schemathesis's large modules, 3.12+ does not.
 */
export function findPython(): string {
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
  if (!python) throw new Error('the Python tools need Python 3.10 or newer (python3 on PATH)');
  return python;
}

/**
 * A Python tool from PyPI in its own virtualenv under .tools/<name>, created the first time (like the Temporal CLI,
 * nothing needs installing by hand); `isInstalled` says whether the one there is the version wanted. Answers the
 * virtualenv's folder.
 */
export function pythonTool(
  name: string,
  requirement: string,
  isInstalled: (venv: string) => boolean,
  log: (line: string) => void = () => undefined,
): string {
  const venv = join(ROOT, '.tools', name);
  if (existsSync(join(venv, 'bin/python')) && isInstalled(venv)) return venv;
  const python = findPython();
  log(`installing ${requirement} into .tools/${name} with ${python}`);
  execFileSync(python, ['-m', 'venv', '--clear', venv], { stdio: 'inherit' });
  execFileSync(join(venv, 'bin/pip'), ['install', '--quiet', '--disable-pip-version-check', requirement], {
    stdio: 'inherit',
  });
  if (!isInstalled(venv)) throw new Error(`${requirement} did not install into ${venv}`);
  return venv;
}

/** Whether a command answers with output containing `expected`. */
export function answers(command: string, args: string[], expected: string): boolean {
  try {
    return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).includes(expected);
  } catch {
    return false;
  }
}

/** The Python tools the tests run, each from PyPI at its version, in .tools/<name>. */
export const PYTHON_TOOLS = {
  /** The fuzz suite (test/fuzz, test/helpers/schemathesis.ts). */
  schemathesis: { version: '4.32.5', requirement: 'schemathesis', command: 'st' },
  /** The generated-client test (test/clients/python-client.test.ts). */
  'openapi-python-client': {
    version: '0.29.1',
    requirement: 'openapi-python-client',
    command: 'openapi-python-client',
  },
} as const;

/** One of PYTHON_TOOLS, installed the first time; answers its command's path. */
export function installedPythonTool(name: keyof typeof PYTHON_TOOLS, log?: (line: string) => void): string {
  const { version, requirement, command } = PYTHON_TOOLS[name];
  const venv = pythonTool(
    name,
    `${requirement}==${version}`,
    (dir) => answers(join(dir, 'bin', command), ['--version'], version),
    log,
  );
  return join(venv, 'bin', command);
}

/**
 * `tsx test/helpers/python-tools.ts`: installs them all (CI does it beside its other set-up: on a fresh machine PyPI's
 * downloads took a minute of the first tests that used them).
 */
if (require.main === module)
  for (const name of Object.keys(PYTHON_TOOLS) as Array<keyof typeof PYTHON_TOOLS>)
    console.log(installedPythonTool(name, (line) => console.log(line)));
