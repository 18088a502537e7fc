import { execFile, spawn } from 'node:child_process';
import {
  copyFileSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { startEvmFaucet, type RunningEvmFaucet } from '../../dev/evm-faucet';
import { readCardText } from '../../sandbox/id-card-image';

const run = promisify(execFile);
const ROOT = realpathSync(join(__dirname, '..', '..'));
const CLIENT = join(ROOT, 'clients', 'typescript');
/** The Node the repository runs on (the `node` dev dependency, Node 24: it runs a .ts file by stripping its types). */
const NODE = process.execPath;

/**
 * The environment of an npm or node run in the app's folder: none of the npm_* variables an `npm test` or `npx jest`
 * sets (npm_config_local_prefix would point npm back at this repository).
 */
const outsideEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key))),
  npm_config_loglevel: 'error',
  ...extra,
});

/** Every file under a folder, relative to it. */
const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => !entry.isDirectory())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)));

/**
 * The client as an app outside the repository gets it: `npm pack` (its prepack builds dist/), the tarball installed
 * with `npm install` into an empty folder under the system's temporary directory, and the quickstart copied there and
 * run by Node itself (no tsx, no tsconfig paths, no workspace link) against a test stack with both chains and an EVM
 * faucet, as `npm start`'s.
 */
describe('the client installed outside the repository (npm pack)', () => {
  let app: string;
  let tarball: string;
  let packed: string[];
  let stack: TestStack;
  let faucet: RunningEvmFaucet;

  beforeAll(async () => {
    app = realpathSync(mkdtempSync(join(tmpdir(), 'wallet-client-app-')));
    // The package and the stack are made at once: each is mostly waiting (npm's registry, the chains).
    const install = (async () => {
      const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', app], {
        cwd: CLIENT,
        env: outsideEnv(),
        maxBuffer: 16 * 1024 * 1024,
      });
      const [pack] = JSON.parse(stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
      tarball = join(app, pack!.filename);
      packed = pack!.files.map((f) => f.path);
      // The build is the tarball's: the repository runs on the client's source (the tsx run below shows it).
      rmSync(join(CLIENT, 'dist'), { recursive: true, force: true });
      writeFileSync(
        join(app, 'package.json'),
        `${JSON.stringify({ name: 'wallet-app', private: true, type: 'module' }, null, 2)}\n`,
      );
      copyFileSync(join(CLIENT, 'examples', 'quickstart.ts'), join(app, 'quickstart.ts'));
      // As the client's README says: the tarball, and ethers for the app's own key (the quickstart imports it).
      await run('npm', ['install', tarball, 'ethers@^6', '--no-audit', '--no-fund'], {
        cwd: app,
        env: outsideEnv(),
        timeout: 300_000,
      });
    })();
    const started = (async () => {
      // The quickstart verifies in NICE's window, as npm start's stack runs it.
      stack = await startTestStack(testDatabases()[0]!, { chains: true, env: { IDENTITY_PROVIDER: 'nice' } });
      faucet = await startEvmFaucet(
        stack.chains.map((chain, i) => ({
          networkId: i === 0 ? 'ETHEREUM' : 'POLYGON',
          rpcUrl: chain.rpcUrl,
          usdt: chain.usdt,
          nativeSymbol: i === 0 ? 'ETH' : 'POL',
        })),
        0,
      );
    })();
    // Both settled before a failure is told, so afterAll stops a stack that did start.
    const failed = (await Promise.allSettled([install, started])).find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  }, 600_000);

  afterAll(async () => {
    await faucet?.stop();
    await stack?.stop();
    if (app) rmSync(app, { recursive: true, force: true });
  });

  it('ships JavaScript and declarations (dist/), the document, README and CHANGELOG; no TypeScript source', () => {
    expect(packed).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'CHANGELOG.md',
        'openapi.json',
        'dist/index.js',
        'dist/index.d.ts',
        'dist/schema.d.ts',
      ]),
    );
    expect(packed.filter((path) => !/^dist\/[a-z-]+\.(js|d\.ts)$/.test(path)).sort()).toEqual(
      ['CHANGELOG.md', 'README.md', 'openapi.json', 'package.json'].sort(),
    );
    const manifest = JSON.parse(readFileSync(join(CLIENT, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest.private).toBeUndefined();
    expect(manifest.version).toBe(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);
  });

  it('resolves inside the app, by import and by require, with no path back into the repository', async () => {
    const installed = join(app, 'node_modules', '@wallet-service', 'client');
    expect(lstatSync(installed).isSymbolicLink()).toBe(false); // a copy, not the workspace's link
    const { stdout } = await run(
      NODE,
      [
        '--input-type=module',
        '-e',
        `import { createRequire } from 'node:module';
         import * as client from '@wallet-service/client';
         const require = createRequire(process.cwd() + '/');
         console.log(JSON.stringify({
           imported: import.meta.resolve('@wallet-service/client'),
           required: require.resolve('@wallet-service/client'),
           document: import.meta.resolve('@wallet-service/client/openapi.json'),
           exports: Object.keys(client).sort(),
           requiredExports: Object.keys(require('@wallet-service/client')).sort(),
         }));`,
      ],
      { cwd: app, env: outsideEnv() },
    );
    const found = JSON.parse(stdout) as Record<string, string> & { exports: string[]; requiredExports: string[] };
    expect(found.imported).toBe(`file://${installed}/dist/index.js`);
    expect(found.required).toBe(join(installed, 'dist', 'index.js'));
    expect(found.document).toBe(`file://${installed}/openapi.json`);
    // Named exports from `import` too (Node reads them from the CommonJS build), and from `require`.
    const names = ['createWalletClient', 'idempotencyKey', 'poll', 'signSlot', 'SoftwarePasskey', 'verifyWebhook'];
    expect(found.exports).toEqual(expect.arrayContaining(names));
    expect(found.requiredExports).toEqual(expect.arrayContaining(names));
    // Nothing installed points back: no symbolic link out of the app's folder, no file naming the repository.
    const links = readdirSync(join(app, 'node_modules'), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isSymbolicLink())
      .map((entry) => realpathSync(join(entry.parentPath, entry.name)));
    expect(links.filter((target) => !target.startsWith(`${app}/`))).toEqual([]);
    for (const path of filesUnder(installed)) expect(readFileSync(join(installed, path), 'utf8')).not.toContain(ROOT);
  });

  it("type-checks an app against the shipped declarations (tsc, nodenext, erasable syntax only as Node's)", async () => {
    // The repository's TypeScript and @types/node stand for the app's own; the client's types come from the tarball.
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'nodenext',
          strict: true,
          noEmit: true,
          verbatimModuleSyntax: true,
          erasableSyntaxOnly: true,
          typeRoots: [join(ROOT, 'node_modules', '@types')],
          types: ['node'],
        },
        files: ['quickstart.ts'],
      }),
    );
    const checked = await run(NODE, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', app], {
      cwd: app,
      env: outsideEnv(),
    }).then(
      () => '',
      (error: { stdout: string }) => error.stdout,
    );
    expect(checked).toBe('');
  });

  it("the sandbox serves ID-card images its OCR reads, for apps that cannot import the repository's helper", async () => {
    const card = { name: '홍길동', birthDate: '1990-01-15', idNumber: '9001151234567', issueDate: '2020-03-02' };
    const answer = await fetch(`${stack.sandboxUrl}/clova/_id-card.png?${new URLSearchParams(card)}`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('image/png');
    expect(readCardText(Buffer.from(await answer.arrayBuffer()))).toEqual(card);
    const refused = await fetch(`${stack.sandboxUrl}/clova/_id-card.png?name=x&birthDate=15-01-1990`);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ error: expect.stringContaining('birthDate') });
  });

  it('runs the quickstart there with Node, without tsx: registered, deployed, 0.01 ETH sent and confirmed', async () => {
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(24);
    const output = await runQuickstart(NODE, ['quickstart.ts'], app);
    expect(output).toContain('eKYC: verified');
    expect(output).toMatch(/account: 0x[0-9a-fA-F]{40}/);
    expect(output).toMatch(/transfer tr_\S+: (confirmed|finalized) 0\.01 ETH in 0x[0-9a-f]{64}/);
  }, 300_000);

  it("and with tsx in the repository, on the client's source (the README's walk-through)", async () => {
    const output = await runQuickstart(
      join(ROOT, 'node_modules', '.bin', 'tsx'),
      [join(CLIENT, 'examples', 'quickstart.ts')],
      ROOT,
    );
    expect(output).toMatch(/transfer tr_\S+: (confirmed|finalized) 0\.01 ETH in 0x[0-9a-f]{64}/);
  }, 300_000);

  /** The quickstart's output, run by `command` in `cwd` against the stack; it must exit 0. */
  async function runQuickstart(command: string, args: string[], cwd: string): Promise<string> {
    const result = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = spawn(command, args, {
        cwd,
        env: outsideEnv({ API_URL: stack.apiUrl, SANDBOX_URL: stack.sandboxUrl, FAUCET_URL: faucet.url }),
        timeout: 240_000,
      });
      let output = '';
      child.stdout.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr.on('data', (d: Buffer) => (output += d.toString()));
      child.on('close', (code) => resolve({ code, output }));
    });
    if (result.code !== 0) throw new Error(`quickstart (${command}) exited ${result.code}:\n${result.output}`);
    return result.output;
  }
});
