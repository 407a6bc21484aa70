// A throw-away PostgreSQL 15 cluster with PostGIS for the conformance runs: Debian's packages (the embedded
// PostgreSQL has no PostGIS), installed here when missing and we may (root, or CI=true), in a temporary directory,
// on a free loopback port, stopped and removed by `stop()`.
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BIN = '/usr/lib/postgresql/15/bin';
const POSTGIS = '/usr/share/postgresql/15/extension/postgis.control';
const PACKAGES = ['postgresql-15', 'postgresql-15-postgis-3'];

export interface PostgisCluster {
  /** Superuser URL (user postgres). */
  readonly url: string;
  readonly port: number;
  /** Runs a SQL file with psql, stopping at the first error. */
  psql(file: string, database?: string, options?: PsqlOptions): void;
  stop(): void;
}

interface PsqlOptions {
  /** psql variables (`-v name=value`). */
  readonly vars?: Readonly<Record<string, string>>;
  /** libpq variables for the session (PGOPTIONS, PGTZ). */
  readonly env?: Readonly<Record<string, string>>;
}

interface ClusterOptions {
  /** More initdb arguments (a test setup's locale and encoding). */
  readonly initdb?: readonly string[];
  /** More server settings (`-c name=value`). */
  readonly settings?: Readonly<Record<string, string>>;
  /** The server's time zone environment (initdb takes the cluster's default time zone from TZ). */
  readonly tz?: string;
}

function installed(): boolean {
  return existsSync(join(BIN, 'postgres')) && existsSync(POSTGIS);
}

function install(): void {
  const root = process.getuid?.() === 0;
  if (!root) {
    throw new Error(`PostgreSQL 15 with PostGIS is missing: run apt-get install -y ${PACKAGES.join(' ')} as root`);
  }
  console.log(`conformance: installing ${PACKAGES.join(' ')} from Debian's packages ...`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', ...PACKAGES], { stdio: ['ignore', 'ignore', 'inherit'], env });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export async function startPostgis(options: ClusterOptions = {}): Promise<PostgisCluster> {
  if (!installed()) install();
  if (!installed()) throw new Error('PostgreSQL 15 with PostGIS is still missing after the install');
  // initdb refuses to run as root: as root the cluster belongs to the postgres system user.
  const root = process.getuid?.() === 0;
  if (root && spawnSync('id', ['postgres']).status !== 0) {
    execFileSync('useradd', ['-M', '-s', '/usr/sbin/nologin', 'postgres']);
  }
  const dir = mkdtempSync(join(tmpdir(), 'rest-conformance-pg-'));
  const password = 'conformance';
  writeFileSync(join(dir, 'pw'), password);
  if (root) {
    chownSync(dir, Number(execFileSync('id', ['-u', 'postgres']).toString()), 0);
    chownSync(join(dir, 'pw'), Number(execFileSync('id', ['-u', 'postgres']).toString()), 0);
  }
  const run = (bin: string, args: string[]) => {
    const [cmd, argv] = root ? ['su', ['postgres', '-s', join(BIN, bin), '--', ...args]] : [join(BIN, bin), args];
    const env = options.tz ? { ...process.env, TZ: options.tz } : process.env;
    const r = spawnSync(cmd as string, argv as string[], { encoding: 'utf8', env });
    if (r.status !== 0) throw new Error(`${bin} failed:\n${r.stdout}\n${r.stderr}`);
    return r.stdout;
  };
  const data = join(dir, 'data');
  run('initdb', [
    '-D',
    data,
    '-U',
    'postgres',
    '--auth=scram-sha-256',
    `--pwfile=${join(dir, 'pw')}`,
    ...(options.initdb ?? []),
  ]);
  const port = await freePort();
  // effective_cache_size and compute_query_id as the Supabase database image sets them (EXPLAIN ... SETTINGS and
  // VERBOSE show them; the suite's plan snapshots expect them).
  const opts =
    `-p ${port} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100 -k ${dir} ` +
    '-c effective_cache_size=128MB -c compute_query_id=on' +
    Object.entries(options.settings ?? {})
      .map(([k, v]) => ` -c ${k}=${v}`)
      .join('');
  run('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', '-o', opts, 'start']);
  const url = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    psql(file, database = 'postgres', psqlOptions = {}) {
      const vars = Object.entries(psqlOptions.vars ?? {}).flatMap(([k, v]) => ['-v', `${k}=${v}`]);
      const r = spawnSync(
        join(BIN, 'psql'),
        [
          '-q',
          '-X',
          '-v',
          'ON_ERROR_STOP=1',
          ...vars,
          '-f',
          file,
          `postgres://postgres:${password}@127.0.0.1:${port}/${database}`,
        ],
        { encoding: 'utf8', env: { ...process.env, ...psqlOptions.env } },
      );
      if (r.status !== 0) throw new Error(`psql ${file} failed:\n${r.stderr}`);
    },
    stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
