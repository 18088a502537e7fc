import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');

/**
 * The published OpenAPI document (clients/typescript/openapi.json, checked to be the generated one by
 * client-generated.test.ts) passes Redocly CLI's recommended rules (redocly.yaml; the pinned version in package.json)
 * with no error and no warning, but the one finding accepted in .redocly.lint-ignore.yaml with its reason.
 */
describe('the OpenAPI document', () => {
  it("passes Redocly's recommended rules: no error, no warning", () => {
    const run = spawnSync(
      process.execPath,
      [require.resolve('@redocly/cli/bin/cli.js'), 'lint', 'clients/typescript/openapi.json', '--format=summary'],
      { cwd: ROOT, encoding: 'utf8', env: { ...process.env, REDOCLY_TELEMETRY: 'off', NO_COLOR: '1' } },
    );
    const output = `${run.stdout}\n${run.stderr}`;
    expect({
      status: run.status,
      valid: /Your API description is valid/.test(output),
      warnings: /warning/i.test(output.replace(/Deprecation warning[^\n]*/g, '')),
    }).toEqual({
      status: 0,
      valid: true,
      warnings: false,
    });
  }, 120_000);

  it("passes Spectral's OpenAPI ruleset (.spectral.yaml): no error, no warning", () => {
    const run = spawnSync(
      process.execPath,
      [
        require.resolve('@stoplight/spectral-cli/dist/index.js'),
        'lint',
        'clients/typescript/openapi.json',
        '--ruleset',
        '.spectral.yaml',
        '--format',
        'text',
        '--fail-severity',
        'warn',
      ],
      { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } },
    );
    const findings = `${run.stdout}\n${run.stderr}`.split('\n').filter((line) => /\b(error|warning)\b/.test(line));
    expect({ status: run.status, findings }).toEqual({ status: 0, findings: [] });
  }, 120_000);
});
