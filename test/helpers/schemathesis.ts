import { PYTHON_TOOLS, installedPythonTool } from './python-tools';

/** The Schemathesis version the fuzz suite runs (from PyPI). */
export const SCHEMATHESIS_VERSION = PYTHON_TOOLS.schemathesis.version;

/**
 * The `st` command: SCHEMATHESIS_PATH, else .tools/schemathesis (a virtualenv), created with the newest Python 3.10+
 * found and filled from PyPI the first time. Like the Temporal CLI, nothing needs installing by hand.
 */
export function resolveSchemathesis(log: (line: string) => void = () => undefined): string {
  if (process.env.SCHEMATHESIS_PATH) return process.env.SCHEMATHESIS_PATH;
  return installedPythonTool('schemathesis', log);
}
