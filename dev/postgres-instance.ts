import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A PostgreSQL server of our own (initdb into `dir`, listening on loopback at `port`), for the Temporal cluster and
 * its fault drills: it can be restarted without touching any other database of the machine. Uses the server binaries
 * of the machine's PostgreSQL (`/usr/lib/postgresql/<version>/bin`, which `.ci/run` installs). PostgreSQL refuses to
 * run as root, so under root it runs as the `postgres` user, as Debian's own clusters do.
 */
export interface PostgresInstance {
  /** The superuser's URL (database `postgres`); trust authentication, loopback only. */
  url: string;
  port: number;
  dir: string;
  /** A fast restart: every connection is cut, the server is back on the same port and data. */
  restart(): void;
  stop(): void;
}

export const POSTGRES_SUPERUSER = 'cluster';

function postgresBin(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))) : [];
  const latest = versions.sort((a, b) => Number(a) - Number(b)).at(-1);
  if (!latest)
    throw new Error(
      'PostgreSQL server binaries not found under /usr/lib/postgresql: install the postgresql package (.ci/run does)',
    );
  return join(root, latest, 'bin');
}

export function startPostgresInstance(dir: string, port: number): PostgresInstance {
  const bin = postgresBin();
  const asRoot = process.getuid?.() === 0;
  const run = (tool: string, args: string[]) => {
    const [command, argv] = asRoot
      ? ['runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]]
      : [join(bin, tool), args];
    return execFileSync(command, argv, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  };
  const data = join(dir, 'data');
  mkdirSync(dir, { recursive: true });
  if (asRoot) {
    const ids = execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim();
    const gid = execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim();
    chownSync(dir, Number(ids), Number(gid));
    if (spawnSync('runuser', ['-u', 'postgres', '--', 'test', '-w', dir]).status !== 0) {
      throw new Error(`the postgres user cannot reach ${dir}: make its parent directories traversable (chmod o+x)`);
    }
  }
  if (!existsSync(join(data, 'PG_VERSION'))) {
    run('initdb', ['-D', data, '-U', POSTGRES_SUPERUSER, '--auth=trust', '--encoding=UTF8', '--no-instructions']);
    writeFileSync(join(dir, 'created'), new Date().toISOString());
  }
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=300`;
  const ctl = (...args: string[]) =>
    run('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-o', options, '-w', '-t', '60', ...args]);
  ctl('start');
  return {
    url: `postgresql://${POSTGRES_SUPERUSER}@127.0.0.1:${port}/postgres`,
    port,
    dir,
    restart: () => {
      ctl('restart', '-m', 'fast');
    },
    stop: () => {
      try {
        ctl('stop', '-m', 'fast');
      } catch {
        /* already stopped */
      }
    },
  };
}
