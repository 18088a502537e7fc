import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { PROBLEM_CATALOGUE } from '../../api/http/problem-catalogue';

const ROOT = join(__dirname, '../..');

/** Every .ts file under a folder. */
const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );

/**
 * The problem types the code can answer, read from its source: the literal types of `new HttpError(status, '<type>'`,
 * of the problems helpers that take one (409 conflict, 422 unprocessable, 410 gone, 403 forbiddenAs, 401 for
 * credentials), the slugs of the workflow-failure table and the keys of the domain table, each with the statuses it
 * is seen with; then those the recorded answers of the test suite name (api/http/examples.json: types chosen by an
 * expression, which no literal shows).
 */
function answeredTypes(): Map<string, { statuses: Set<number>; files: Set<string> }> {
  const found = new Map<string, { statuses: Set<number>; files: Set<string> }>();
  const add = (type: string, file: string, status?: number) => {
    const at = found.get(type) ?? { statuses: new Set<number>(), files: new Set<string>() };
    if (status) at.statuses.add(status);
    at.files.add(relative(ROOT, file));
    found.set(type, at);
  };
  const helperStatus: Record<string, number> = {
    conflict: 409,
    unprocessable: 422,
    gone: 410,
    forbiddenAs: 403,
    invalidCredential: 401,
  };
  for (const file of sources(join(ROOT, 'api'))) {
    if (file.includes('problem-catalogue')) continue;
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/new HttpError\(\s*(\d{3}),\s*'([a-z0-9-]+)'/g)) add(m[2]!, file, Number(m[1]));
    for (const m of text.matchAll(
      /problems\.(conflict|unprocessable|gone|forbiddenAs|invalidCredential)\(\s*'([a-z0-9-]+)'/g,
    ))
      add(m[2]!, file, helperStatus[m[1]!]);
    for (const m of text.matchAll(/problems\.unauthorized\([\s\S]{0,400}?,\s*'([a-z0-9-]+)',?\s*\)/g))
      add(m[1]!, file, 401);
    for (const m of text.matchAll(/status: (\d{3}),\s*slug: '([a-z0-9-]+)'/g)) add(m[2]!, file, Number(m[1]));
    for (const m of text.matchAll(/\{ status: (\d{3}),[^}]*?slug: '([a-z0-9-]+)'/g)) add(m[2]!, file, Number(m[1]));
    for (const m of text.matchAll(/slug: '([a-z0-9-]+)'/g)) add(m[1]!, file);
    if (file.endsWith('domain-problems.ts'))
      for (const m of text.matchAll(/'([a-z0-9-]+)': \{ status: (\d{3})/g)) add(m[1]!, file, Number(m[2]));
  }
  const examples = readFileSync(join(ROOT, 'api/http/examples.json'), 'utf8');
  for (const m of examples.matchAll(/\/problems\/([a-z0-9-]+)/g)) add(m[1]!, join(ROOT, 'api/http/examples.json'));
  return found;
}

describe('the problem catalogue', () => {
  const answered = answeredTypes();
  const catalogued = new Set(Object.keys(PROBLEM_CATALOGUE));

  it('has an entry for every problem type the service can answer, and none for a type it no longer answers', () => {
    expect(answered.size).toBeGreaterThan(150);
    expect([...answered.keys()].filter((type) => !catalogued.has(type)).sort()).toEqual([]);
    expect([...catalogued].filter((type) => !answered.has(type)).sort()).toEqual([]);
  });

  it('gives each the status(es) the code answers it with, and says what, when, what to do, with an example', () => {
    const wrong: string[] = [];
    for (const [type, entry] of Object.entries(PROBLEM_CATALOGUE)) {
      const statuses = Array.isArray(entry.status) ? entry.status : [entry.status];
      for (const status of answered.get(type)?.statuses ?? [])
        if (!statuses.includes(status))
          wrong.push(`${type}: answered with ${status}, catalogued ${statuses.join(', ')}`);
      for (const field of ['title', 'meaning', 'when', 'action', 'example'] as const)
        if (entry[field].trim().length < 3) wrong.push(`${type}: no ${field}`);
    }
    expect(wrong).toEqual([]);
  });
});
