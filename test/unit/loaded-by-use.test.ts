import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');

/**
 * Libraries few requests or activities use are loaded by their first use, not at a process's start (issue 52: the
 * memory of the api and the worker at rest). This loads the modules a process's entry point imports, in a fresh Node
 * (jest's own module registry would not tell), and lists which of those libraries came with them.
 */
function loadedAtStart(entryModules: string[]): string[] {
  const script = `
    for (const m of ${JSON.stringify(entryModules)}) require(m);
    const names = Object.keys(require.cache)
      .map((f) => f.match(/node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//)?.[1])
      .filter(Boolean);
    console.log(JSON.stringify([...new Set(names)]));
  `;
  const out = execFileSync(join(ROOT, 'node_modules/.bin/tsx'), ['-e', script], { cwd: ROOT, encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop()!) as string[];
}

/** Loaded on first use by both processes (the migrator only where a tool migrates). */
const LAZY = [
  'jsonld',
  'nodemailer',
  'libsodium-wrappers',
  '@simplewebauthn/server',
  '@openzeppelin/merkle-tree',
  '@mikro-orm/migrations',
  '@mikro-orm/better-sqlite',
  'better-sqlite3',
  // undici: loaded by the first call to a provider (integrations/provider-http.ts).
  'undici',
];

/** Loaded on first use by the worker: jose signs an exchange's calls there (the api verifies its own tokens with it). */
const WORKER_LAZY = ['jose'];

describe('libraries loaded by use', () => {
  it("the worker's modules load none of them, nor Solana's kit", () => {
    const loaded = loadedAtStart([
      './worker/composition',
      './worker/create-worker',
      './worker/schedules',
      './worker/watches',
      './worker/data-upgrades',
      './db/orm',
      './integrations/sanctions',
    ]);
    // The check looks at the right thing: the worker's own libraries are there.
    expect(loaded).toEqual(expect.arrayContaining(['@temporalio/worker', 'ethers', '@mikro-orm/core']));
    const solana = loaded.filter((name) => name === '@solana/kit' || name.startsWith('@solana-program/'));
    expect({ lazy: loaded.filter((name) => LAZY.includes(name) || WORKER_LAZY.includes(name)), solana }).toEqual({
      lazy: [],
      solana: [],
    });
  });

  it("the worker's start (what worker/main.ts imports) loads no ORM: a worker at rest opens it on first use", () => {
    // worker/main.ts's own imports, read from it (its type-only imports load nothing).
    const source = readFileSync(join(ROOT, 'worker/main.ts'), 'utf8');
    const imports = [...source.matchAll(/^import (?!type )[^;]*? from '(\.\.?\/[^']+)';$/gms)].map(
      (m) => `./worker/${m[1]}`,
    );
    expect(imports).toEqual(expect.arrayContaining(['./worker/./resident', './worker/../db/resident']));
    const loaded = loadedAtStart(imports);
    expect(loaded).toEqual(expect.arrayContaining(['@temporalio/worker', 'pg']));
    expect(loaded.filter((name) => name.startsWith('@mikro-orm/') || name === 'knex')).toEqual([]);
  });

  it("the api's modules load none of them", () => {
    const loaded = loadedAtStart(['./api/composition', './db/orm']);
    expect(loaded).toEqual(expect.arrayContaining(['koa', 'ajv', '@temporalio/client']));
    expect(loaded.filter((name) => LAZY.includes(name))).toEqual([]);
  });
});
