/**
 * Writes the step-up policy table (api/http/step-up-table.ts) into docs/security.md between its markers, from the
 * route table as it is. `npm run docs:security`; `-- --check` only compares and exits 1 when the page differs (a unit
 * test runs it, so the page cannot drift from the routes).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { offlineRoutes } from '../api/openapi-document';
import { stepUpTable } from '../api/http/step-up-table';

export const SECURITY_PAGE = join(__dirname, '..', 'docs', 'security.md');
const START = '<!-- step-up-policy:start (npm run docs:security writes this table) -->';
const END = '<!-- step-up-policy:end -->';

/** The page with the table as the routes have it now. */
export function pageWithTable(page: string): string {
  const from = page.indexOf(START);
  const to = page.indexOf(END);
  if (from < 0 || to < from) throw new Error(`docs/security.md lacks the markers ${START} … ${END}`);
  return `${page.slice(0, from + START.length)}\n${stepUpTable(offlineRoutes())}\n${page.slice(to)}`;
}

function main(): void {
  const page = readFileSync(SECURITY_PAGE, 'utf8');
  const next = pageWithTable(page);
  if (process.argv.includes('--check')) {
    if (next !== page) {
      console.log('docs/security.md differs from the routes: run npm run docs:security');
      process.exit(1);
    }
    console.log('docs/security.md matches the routes');
    return;
  }
  writeFileSync(SECURITY_PAGE, next);
  console.log(`Wrote the step-up table into ${SECURITY_PAGE}`);
}

if (require.main === module) main();
