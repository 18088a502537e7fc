import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Client as PgClient } from 'pg';
import { stopChild } from './child-process';
import { waitForTemporal } from './temporal-dev-server';
import { SEARCH_ATTRIBUTES } from '../workflows/messages';
import { TOOLS_BIN, buildTemporalBinaries, temporalModuleVersion } from './temporal-go';

/**
 * The production Temporal server (not the dev server): `temporal-server` v1.29.1 with its four services (frontend,
 * history, matching, worker) in one process, persistence and visibility on PostgreSQL. The binaries are built with
 * Go into .tools/bin, once, with the CLI (dev/temporal-go.ts); the schema comes from the same module version (the sql
 * tool applies it).
 */
const MODULE = 'go.temporal.io/server';
export const TEMPORAL_SERVER_VERSION = temporalModuleVersion(MODULE);
const SERVER_BIN = join(TOOLS_BIN, 'server');
const SQL_BIN = join(TOOLS_BIN, 'sql');

export interface ClusterDatabase {
  host: string;
  port: number;
  user: string;
  password?: string;
}

export interface TemporalClusterOptions {
  /** PostgreSQL holding the two stores (databases `temporal` and `temporal_visibility`, created when missing). */
  database: ClusterDatabase;
  /** Frontend gRPC port; the other services take free ports of their own. */
  frontendPort: number;
  /** Where the rendered configuration and the server's log go. */
  dir: string;
  namespace?: string;
  log?: (line: string) => void;
}

export interface RunningCluster {
  address: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** The server and sql tool binaries, built with Go into .tools/bin when missing (a few minutes, once). */
export function ensureTemporalServer(log: (line: string) => void = () => {}): { server: string; sql: string } {
  if (!existsSync(SERVER_BIN) || !existsSync(SQL_BIN)) buildTemporalBinaries(log);
  return { server: SERVER_BIN, sql: SQL_BIN };
}

/** The PostgreSQL schema directory of the server's module version (downloaded into Go's module cache if needed). */
function schemaDir(): string {
  const download = JSON.parse(
    execFileSync('go', ['mod', 'download', '-json', `${MODULE}@${TEMPORAL_SERVER_VERSION}`], {
      encoding: 'utf8',
      cwd: '/',
    }),
  ) as { Dir: string };
  return join(download.Dir, 'schema', 'postgresql', 'v12');
}

const STORES = [
  { database: 'temporal', schema: 'temporal' },
  { database: 'temporal_visibility', schema: 'visibility' },
] as const;

/** Creates both databases when missing and brings their schemas to the server's version (idempotent). */
export async function setupTemporalSchema(db: ClusterDatabase, log: (line: string) => void = () => {}): Promise<void> {
  const { sql } = ensureTemporalServer(log);
  const admin = new PgClient({
    host: db.host,
    port: db.port,
    user: db.user,
    password: db.password,
    database: 'postgres',
  });
  await admin.connect();
  try {
    for (const { database } of STORES) {
      const exists = await admin.query('select 1 from pg_database where datname = $1', [database]);
      if (exists.rowCount === 0) await admin.query(`create database ${database}`);
    }
  } finally {
    await admin.end();
  }
  const schemas = schemaDir();
  for (const { database, schema } of STORES) {
    const base = ['--plugin', 'postgres12', '--ep', db.host, '-p', String(db.port), '-u', db.user, '--db', database];
    if (db.password) base.push('--pw', db.password);
    // setup-schema -v 0.0 creates the version table only (a no-op once it exists); update-schema applies what is missing.
    execFileSync(sql, [...base, 'setup-schema', '-v', '0.0'], { stdio: 'pipe' });
    execFileSync(sql, [...base, 'update-schema', '-d', join(schemas, schema, 'versioned')], { stdio: 'pipe' });
    log(`schema ${schema} ready in database ${database}`);
  }
}

/** A free loopback port in [min, max]. */
async function freePortIn(min: number, max: number): Promise<number> {
  for (;;) {
    const port = min + Math.floor(Math.random() * (max - min + 1));
    const free = await new Promise<boolean>((resolve) => {
      const probe = createServer();
      probe.once('error', () => resolve(false));
      probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

interface ServicePorts {
  frontendHttp: number;
  membership: [number, number, number, number];
  grpc: [number, number, number];
}

/** Membership ports are stored in a smallint column (cluster_membership.rpc_port): they must stay below 32768. */
async function servicePorts(): Promise<ServicePorts> {
  const taken = new Set<number>();
  const pick = async (min: number, max: number) => {
    for (;;) {
      const port = await freePortIn(min, max);
      if (!taken.has(port)) {
        taken.add(port);
        return port;
      }
    }
  };
  return {
    frontendHttp: await pick(20000, 32767),
    membership: [
      await pick(20000, 32767),
      await pick(20000, 32767),
      await pick(20000, 32767),
      await pick(20000, 32767),
    ],
    grpc: [await pick(20000, 32767), await pick(20000, 32767), await pick(20000, 32767)],
  };
}

function renderConfig(options: TemporalClusterOptions, ports: ServicePorts): string {
  const { database: db, frontendPort } = options;
  const {
    frontendHttp,
    membership: [frontendMembership, historyMembership, matchingMembership, workerMembership],
    grpc: [historyGrpc, matchingGrpc, workerGrpc],
  } = ports;
  const store = (database: string, maxConns: number) => `
      sql:
        pluginName: postgres12
        databaseName: ${database}
        connectAddr: "${db.host}:${db.port}"
        connectProtocol: tcp
        user: ${JSON.stringify(db.user)}
        password: ${JSON.stringify(db.password ?? '')}
        maxConns: ${maxConns}
        maxIdleConns: ${maxConns}
        maxConnLifetime: 1h`;
  const service = (grpc: number, membership: number, http?: number) => `
    rpc:
      grpcPort: ${grpc}
      membershipPort: ${membership}
      bindOnLocalHost: true${http ? `\n      httpPort: ${http}` : ''}`;
  return `log:
  stdout: true
  level: warn
persistence:
  defaultStore: default
  visibilityStore: visibility
  numHistoryShards: 4
  datastores:
    default:${store('temporal', 20)}
    visibility:${store('temporal_visibility', 4)}
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: 127.0.0.1
services:
  frontend:${service(frontendPort, frontendMembership, frontendHttp)}
  history:${service(historyGrpc, historyMembership)}
  matching:${service(matchingGrpc, matchingMembership)}
  worker:${service(workerGrpc, workerMembership)}
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: 127.0.0.1:${frontendPort}
dcRedirectionPolicy:
  policy: noop
dynamicConfigClient:
  filepath: ${join(options.dir, 'config', 'dynamicconfig.yaml')}
  pollInterval: 10s
`;
}

/** Registered search attributes become visible at once, not after the cache's minute (as the dev server does). */
const DYNAMIC_CONFIG = `system.forceSearchAttributesCacheRefreshOnRead:
  - value: true
`;

const SA_TYPE_NAMES: Record<string, string> = {
  KEYWORD: 'Keyword',
  TEXT: 'Text',
  INT: 'Int',
  DOUBLE: 'Double',
  BOOL: 'Bool',
  DATETIME: 'Datetime',
  KEYWORD_LIST: 'KeywordList',
};

/**
 * Sets up the schema, starts the server (the `cluster` environment of a rendered config in `dir`), then registers the
 * namespace (1-day retention) and our search attributes with the Temporal CLI, each step idempotent.
 */
export async function startTemporalCluster(options: TemporalClusterOptions, cliPath: string): Promise<RunningCluster> {
  const log = options.log ?? (() => {});
  const { server } = ensureTemporalServer(log);
  await setupTemporalSchema(options.database, log);
  mkdirSync(join(options.dir, 'config'), { recursive: true });
  writeFileSync(join(options.dir, 'config', 'cluster.yaml'), renderConfig(options, await servicePorts()));
  writeFileSync(join(options.dir, 'config', 'dynamicconfig.yaml'), DYNAMIC_CONFIG);
  const child = spawn(
    server,
    ['--root', options.dir, '--config', 'config', '--env', 'cluster', '--allow-no-auth', 'start'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout?.on('data', (d: Buffer) => log(d.toString().trimEnd()));
  child.stderr?.on('data', (d: Buffer) => log(d.toString().trimEnd()));
  const address = `127.0.0.1:${options.frontendPort}`;
  await waitForTemporal(address, child, 120_000);
  const namespace = options.namespace ?? 'default';
  const cli = (...args: string[]) => spawnSync(cliPath, [...args, '--address', address], { encoding: 'utf8' });
  const created = cli('operator', 'namespace', 'create', '--namespace', namespace, '--retention', '1d');
  if (created.status !== 0 && !/already (exists|registered)/i.test(created.stderr))
    throw new Error(`namespace ${namespace}: ${created.stderr}`);
  // The frontend learns of a new namespace through its cache; retry the first call on it until it is known.
  for (const sa of SEARCH_ATTRIBUTES) {
    for (let attempt = 1; ; attempt += 1) {
      const made = cli(
        'operator',
        'search-attribute',
        'create',
        '--namespace',
        namespace,
        '--name',
        sa.name,
        '--type',
        SA_TYPE_NAMES[sa.type] ?? 'Keyword',
      );
      if (made.status === 0 || /already exists/i.test(made.stderr)) break;
      if (attempt >= 30) throw new Error(`search attribute ${sa.name}: ${made.stderr}`);
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
  log(
    `Temporal cluster ${TEMPORAL_SERVER_VERSION} on ${address}, namespace ${namespace}, ${SEARCH_ATTRIBUTES.length} search attributes`,
  );
  return { address, process: child, stop: () => stopChild(child) };
}
