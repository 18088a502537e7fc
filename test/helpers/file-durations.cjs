// `npm run -s test:durations [results.json]`: writes test/file-durations.json, each test file's seconds in a full run,
// from jest's JSON results (.data/jest-results.json, which `bash .ci/run` writes), for test/helpers/slowest-first.cjs.
const { readFileSync, writeFileSync } = require('node:fs');
const { join, sep } = require('node:path');

const root = join(__dirname, '..', '..');
const results = JSON.parse(readFileSync(process.argv[2] ?? join(root, '.data/jest-results.json'), 'utf8'));
const files = Object.fromEntries(
  results.testResults
    // From the project's root of that run (a clean clone elsewhere): the file's path from its test/ folder on.
    .map((r) => [
      r.name.slice(r.name.indexOf(`${sep}test${sep}`) + 1),
      Math.round((r.endTime - r.startTime) / 100) / 10,
    ])
    .sort(([a], [b]) => (a < b ? -1 : 1)),
);
const out = {
  measured: `${new Date(results.startTime).toISOString().slice(0, 10)}, bash .ci/run on a clean clone, three files at a time`,
  files,
};
writeFileSync(join(root, 'test/file-durations.json'), `${JSON.stringify(out, null, 2)}\n`);
console.log(`test/file-durations.json: ${Object.keys(files).length} files`);
