import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '../..');
const routeFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? routeFiles(join(dir, entry.name))
      : /routes\.ts$/.test(entry.name)
        ? [join(dir, entry.name)]
        : [],
  );

describe('headers the routes send', () => {
  it('declares Location on every answer a handler gives one (the route table feeds the OpenAPI document)', () => {
    const undeclared: string[] = [];
    let sending = 0;
    for (const file of routeFiles(join(ROOT, 'api'))) {
      const text = readFileSync(file, 'utf8');
      // Helpers of the file that answer with a Location (`const accepted = (...) => ({ ..., headers: { location`).
      const helpers = [...text.matchAll(/const (\w+) = \([^)]*\) => \(\{[\s\S]{0,300}?location:/g)].map((m) => m[1]!);
      for (const block of text.split('defineRoute(').slice(1)) {
        const sends = /\blocation: `/.test(block) || helpers.some((name) => new RegExp(`\\b${name}\\(`).test(block));
        if (!sends) continue;
        sending += 1;
        if (!block.includes('LOCATION_HEADER'))
          undeclared.push(`${relative(ROOT, file)}: ${/operationId: '(\w+)'/.exec(block)?.[1] ?? '?'}`);
      }
    }
    expect(sending).toBeGreaterThan(10);
    expect(undeclared).toEqual([]);
  });
});
