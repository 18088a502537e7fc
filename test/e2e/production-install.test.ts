import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildContracts } from '../../contracts/build';
import { makeIdCardPng } from '../../sandbox/id-card-image';

const ROOT = join(__dirname, '..', '..');

/**
 * The production image installs with `--omit=dev` (Dockerfile: `npm prune --omit=dev`): a package the api or the worker
 * imports at run time must be a dependency, not a devDependency, or the process dies on its first import in
 * production while every test here passes. This builds the code as the image does, installs a copy with
 * `npm install --omit=dev`, and starts each process's entry module there with no settings: it must get as far as reading
 * its settings (and refuse them), never fail to find a module.
 */
describe('a production install (--omit=dev)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wallet-prod-'));
    for (const file of [
      'package.json',
      'package-lock.json',
      'scripts/native-modules.cjs',
      'clients/typescript/package.json',
    ])
      cpSync(join(ROOT, file), join(dir, file), { recursive: true });
    execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json', '--outDir', join(dir, 'dist')], {
      cwd: ROOT,
      stdio: 'pipe',
    });
    buildContracts(); // as the image does (npm run contracts:build), then copied beside the code
    mkdirSync(join(dir, 'dist', 'contracts', 'build'), { recursive: true });
    cpSync(join(ROOT, 'contracts', 'build'), join(dir, 'dist', 'contracts', 'build'), { recursive: true });
    // From npm's cache, which the project's own install filled (asking the registry about each of its packages again
    // took minutes on a fresh machine).
    execFileSync(
      'npm',
      ['install', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel', 'error'],
      {
        cwd: dir,
        stdio: 'pipe',
        env: { ...process.env, NODE_ENV: 'production' },
      },
    );
  }, 600_000);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it.each([['api/main.js'], ['worker/main.js']])('dist/%s loads every module it imports', (entry) => {
    const run = spawnSync(process.execPath, [join('dist', entry)], {
      cwd: dir,
      env: { PATH: process.env.PATH, NODE_ENV: 'production' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    const output = `${run.stdout}${run.stderr}`;
    expect(output).not.toMatch(/Cannot find module|ERR_MODULE_NOT_FOUND/);
    // It stopped at its settings: none were given.
    expect(run.status).not.toBe(0);
    expect(output).toMatch(/DATABASE_URL/);
  });

  it("decodes an ID-card image with what the worker loads only on its first check (sharp's native libvips)", () => {
    const png = makeIdCardPng({ name: '홍길동', birthDate: '1990-01-15' }).toString('base64');
    const run = spawnSync(
      process.execPath,
      [
        '-e',
        `require('./dist/integrations/id-card/image-check.js').imageDecodes(Buffer.from('${png}', 'base64'), 'image/png')` +
          `.then((ok) => { console.log('decodes', ok); process.exit(ok ? 0 : 1); })`,
      ],
      { cwd: dir, env: { PATH: process.env.PATH, NODE_ENV: 'production' }, encoding: 'utf8', timeout: 60_000 },
    );
    expect([run.status, `${run.stdout}${run.stderr}`.trim()]).toEqual([0, 'decodes true']);
  });
});
