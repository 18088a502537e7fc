import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { offlineOpenApi } from '../../api/openapi-document';
import { installedPythonTool } from '../helpers/python-tools';

/** The generator an app developer of another ecosystem would use (issue 53 found its failures on our document). */
const CHECK = join(__dirname, 'python', 'check_client.py');
const snake = (camel: string) => camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

type Json = Record<string, any>;
interface Report {
  counts: { modules: number; operations: number; bodies: number; calls: number; answers: number };
  problems: string[];
}

/**
 * A Python client generated from the document GET /openapi.json serves (the same document, built without a server:
 * test/api/openapi.test.ts checks they are one), by openapi-python-client, then used as an app would use it
 * (check_client.py): every module imports, every request body is built from the document's examples by the client's
 * models, every call reaches the wire as documented, every documented example answer parses and reads back the same.
 */
describe('a Python client generated from the OpenAPI document (openapi-python-client)', () => {
  let generator: string;
  let venv: string;
  let scratch: string;
  beforeAll(() => {
    generator = installedPythonTool('openapi-python-client', (line) => console.log(line));
    venv = dirname(dirname(generator));
    scratch = mkdtempSync(join(tmpdir(), 'python-client-'));
  }, 300_000); // the first run installs the generator from PyPI
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  /** Generates a client from `document` and runs the check on it. */
  const generateAndCheck = (name: string, document: Json): Report => {
    const dir = join(scratch, name);
    const path = join(scratch, `${name}.json`);
    writeFileSync(path, JSON.stringify(document));
    execFileSync(
      generator,
      ['generate', '--path', path, '--output-path', join(dir, 'wallet_client'), '--meta', 'none'],
      // Its formatter (ruff) is in the same virtualenv.
      { env: { ...process.env, PATH: `${join(venv, 'bin')}:${process.env.PATH}` }, stdio: 'pipe' },
    );
    const out = execFileSync(join(venv, 'bin/python'), [CHECK, path, dir], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 * 1024 * 1024,
    });
    return JSON.parse(out.trim().split('\n').at(-1)!) as Report;
  };

  it('imports, builds every request, makes every call and parses every documented answer', () => {
    const document = offlineOpenApi() as Json;
    const report = generateAndCheck('served', document);
    expect(report.problems).toEqual([]);
    const operations = Object.values(document.paths as Json).flatMap((item) => Object.values(item as Json));
    const bodies = operations.flatMap((op) =>
      Object.values((op.requestBody?.content ?? {}) as Json).flatMap((media) =>
        media.example !== undefined ? [media] : [],
      ),
    );
    expect(report.counts.operations).toBe(operations.length);
    expect(report.counts.calls).toBe(operations.length);
    expect(report.counts.bodies).toBe(bodies.length);
    expect(report.counts.modules).toBeGreaterThan(operations.length);
    expect(report.counts.answers).toBeGreaterThan(1000);
  }, 120_000);

  it('fails on what issue 53 found: an operation with two body types, and a set of string constants as anyOf of const', () => {
    const document = structuredClone(offlineOpenApi()) as Json;
    const ekyc = document.paths['/v1/account/register/{regId}/ekyc'].post;
    ekyc.requestBody.content = { ...ekyc['x-json-body'].content, ...ekyc.requestBody.content };
    const card = document.components.schemas;
    const [, schema] = Object.entries(card as Json).find(
      ([, s]) => s.type === 'object' && Object.values((s.properties ?? {}) as Json).some((p) => p.enum?.length > 1),
    )!;
    const [field, property] = Object.entries(schema.properties as Json).find(([, p]) => p.enum?.length > 1)!;
    schema.properties[field] = {
      anyOf: (property.enum as string[]).map((value) => ({ const: value, type: 'string' })),
    };
    const report = generateAndCheck('as-it-was', document);
    expect(report.problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^import wallet_client\.api\.registration\.submit_ekyc: NameError/),
      ]),
    );
    // The constants: the generated model takes the first value alone (`… must match const 'trusted', got …`).
    expect(report.problems).toEqual(
      expect.arrayContaining([expect.stringMatching(new RegExp(`${snake(field)}_type_0 must match const`))]),
    );
  }, 120_000);
});
