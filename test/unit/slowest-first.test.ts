import { join, relative } from 'node:path';
// eslint-disable-next-line @typescript-eslint/no-require-imports -- jest loads the sequencer as CommonJS
const SlowestFirst = require('../helpers/slowest-first.cjs') as new (options: object) => {
  sort(tests: FakeTest[]): FakeTest[];
};
// eslint-disable-next-line @typescript-eslint/no-require-imports
const committed = require('../file-durations.json') as { files: Record<string, number> };

interface FakeTest {
  path: string;
  context: { config: { rootDir: string; cache: boolean }; hasteFS: { getSize(path: string): number } };
}

const rootDir = join(__dirname, '..', '..');
/** A context without jest's cache of the last run's times, as on a fresh machine; every file the same size. */
const context = { config: { rootDir, cache: false }, hasteFS: { getSize: () => 1000 } };
const test = (file: string): FakeTest => ({ path: join(rootDir, file), context });

describe('the test sequencer on a machine without cached times', () => {
  it('runs the files by the committed times, slowest first, and new files before them', () => {
    const byTime = Object.entries(committed.files).sort(([, a], [, b]) => b - a);
    expect(byTime.length).toBeGreaterThan(100);
    const [slowest, top] = byTime[0]!;
    const [fastest, bottom] = byTime[byTime.length - 1]!;
    const [middle] = byTime.find(([, seconds]) => seconds < top && seconds > bottom)!;
    const sorted = new SlowestFirst({}).sort(
      [fastest, 'test/unit/not-measured-yet.test.ts', middle, slowest].map(test),
    );
    expect(sorted.map((t) => relative(rootDir, t.path))).toEqual([
      'test/unit/not-measured-yet.test.ts',
      slowest,
      middle,
      fastest,
    ]);
  });

  it('names only files that exist', () => {
    const { existsSync } = jest.requireActual<typeof import('node:fs')>('node:fs');
    const missing = Object.keys(committed.files).filter((file) => !existsSync(join(rootDir, file)));
    expect(missing).toEqual([]);
  });
});
