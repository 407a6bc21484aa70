// A primary with streaming replicas (pg_basebackup -R) and PgBouncer in transaction mode in front of it, from an
// installed PostgreSQL and PgBouncer (Debian's postgresql-15 and pgbouncer packages), on free loopback ports under
// one temporary directory. For the replica and pooler tests and the benchmark; run as the `postgres` OS user when
// we are root, since both refuse root.
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type EmbeddedCluster, startEmbeddedPostgres, systemUser, waitFor } from '../embedded-postgres.js';
import { findFreePort } from '../ports.js';

/** Where the installed PostgreSQL's binaries are (PG_BIN_DIR, else Debian's for `version`), if present. */
export function installedPostgres(version = 15): string | undefined {
  const dir = process.env.PG_BIN_DIR ?? `/usr/lib/postgresql/${version}/bin`;
  return existsSync(join(dir, 'pg_basebackup')) ? dir : undefined;
}

/** The PgBouncer executable (PGBOUNCER, else Debian's), if present. */
export function installedPgBouncer(): string | undefined {
  const file = process.env.PGBOUNCER ?? '/usr/sbin/pgbouncer';
  return existsSync(file) ? file : undefined;
}

/** A server of the test cluster that can be stopped and started again on the same port (replica outages). */
export interface ClusterServer {
  /** Superuser URL. */
  readonly url: string;
  readonly port: number;
  readonly running: boolean;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface PgCluster {
  primary: ClusterServer;
  replicas: ClusterServer[];
  /** Removes everything (servers stopped first). */
  close(): Promise<void>;
}

/** Test data is disposable: durability off for speed; hot standby and WAL senders are on by default. */
const SETTINGS = { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off', max_connections: 200 };

function owned(path: string): void {
  const owner = systemUser();
  if (owner) chownSync(path, owner.uid, owner.gid);
}

function server(dir: string, binDir: string, port: number, first: EmbeddedCluster): ClusterServer {
  let current: EmbeddedCluster | undefined = first;
  return {
    url: first.url,
    port,
    get running() {
      return current !== undefined;
    },
    async start() {
      current ??= await startEmbeddedPostgres({ dir, binDir, port, settings: SETTINGS });
    },
    async stop() {
      await current?.stop();
      current = undefined;
    },
  };
}

/** Starts a primary and `replicas` streaming replicas of it (each made with pg_basebackup -R). */
export async function startPgCluster(options: { binDir: string; replicas: number }): Promise<PgCluster> {
  const root = mkdtempSync(join(process.env.PG_CLUSTER_TMP ?? tmpdir(), 'auction-ops-pg-cluster-'));
  const servers: ClusterServer[] = [];
  const close = async () => {
    for (const s of servers.reverse()) await s.stop().catch(() => {});
    rmSync(root, { recursive: true, force: true });
  };
  try {
    const primaryDir = join(root, 'primary');
    const first = await startEmbeddedPostgres({ dir: primaryDir, binDir: options.binDir, settings: SETTINGS });
    const primary = server(primaryDir, options.binDir, first.port, first);
    servers.push(primary);
    const password = decodeURIComponent(new URL(first.url).password);
    const replicas: ClusterServer[] = [];
    for (let i = 0; i < options.replicas; i++) {
      const dir = join(root, `replica-${i}`);
      mkdirSync(dir, { mode: 0o700 });
      owned(dir);
      // The superuser's password file beside the data, as startEmbeddedPostgres keeps it: a copy has the same one.
      writeFileSync(join(dir, 'superuser-password'), `${password}\n`, { mode: 0o600 });
      owned(join(dir, 'superuser-password'));
      execFileSync(
        join(options.binDir, 'pg_basebackup'),
        ['-h', '127.0.0.1', '-p', String(first.port), '-U', 'postgres', '-D', join(dir, 'data'), '-R', '-X', 'stream'],
        { ...(systemUser() ?? {}), env: { ...process.env, PGPASSWORD: password }, stdio: ['ignore', 'ignore', 'pipe'] },
      );
      const port = await findFreePort();
      const replica = await startEmbeddedPostgres({ dir, binDir: options.binDir, port, settings: SETTINGS });
      const s = server(dir, options.binDir, port, replica);
      servers.push(s);
      replicas.push(s);
    }
    return { primary, replicas, close };
  } catch (error) {
    await close();
    throw error;
  }
}

export interface PgBouncer {
  /** postgres:// URL of the pooler for `database` (no credentials: the pool adds its own). */
  url(database: string): string;
  readonly port: number;
  stop(): Promise<void>;
}

/**
 * PgBouncer in transaction mode in front of `targetPort`, any database name passed through, logging in with the
 * given users' passwords (SCRAM to the client and to the server). `poolSize` server connections per database and
 * user, fewer than a server's pool, so clients really share connections.
 */
export async function startPgBouncer(options: {
  targetPort: number;
  users: Record<string, string>;
  poolSize?: number;
}): Promise<PgBouncer> {
  const dir = mkdtempSync(join(process.env.PG_CLUSTER_TMP ?? tmpdir(), 'auction-ops-pgbouncer-'));
  owned(dir);
  const port = await findFreePort();
  const quote = (s: string) => `"${s.replaceAll('"', '""')}"`;
  writeFileSync(
    join(dir, 'users.txt'),
    Object.entries(options.users)
      .map(([user, password]) => `${quote(user)} ${quote(password)}\n`)
      .join(''),
    { mode: 0o600 },
  );
  owned(join(dir, 'users.txt'));
  const ini = [
    '[databases]',
    `* = host=127.0.0.1 port=${options.targetPort}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'auth_type = scram-sha-256',
    `auth_file = ${join(dir, 'users.txt')}`,
    'pool_mode = transaction',
    `default_pool_size = ${options.poolSize ?? 5}`,
    'max_client_conn = 1000',
    'max_db_connections = 0',
    `logfile = ${join(dir, 'pgbouncer.log')}`,
    // For scripts/test-pg-cluster.sh to stop a pooler left behind by a crashed run.
    `pidfile = ${join(dir, 'pgbouncer.pid')}`,
    '',
  ].join('\n');
  writeFileSync(join(dir, 'pgbouncer.ini'), ini);
  owned(join(dir, 'pgbouncer.ini'));
  const out = openSync(join(dir, 'stdout.log'), 'a');
  const child = spawn(installedPgBouncer() ?? 'pgbouncer', [join(dir, 'pgbouncer.ini')], {
    ...(systemUser() ?? {}),
    stdio: ['ignore', out, out],
  });
  closeSync(out);
  let exited = false;
  child.on('exit', () => {
    exited = true;
  });
  const listening = () =>
    new Promise<boolean>((resolve) => {
      if (exited) throw new Error(`pgbouncer exited during start; see ${dir}/pgbouncer.log`);
      const socket = connect(port, '127.0.0.1')
        .once('connect', () => resolve(true))
        .once('error', () => resolve(false));
      socket.unref();
      socket.once('connect', () => socket.destroy());
    });
  try {
    await waitFor(listening, 30_000, 'pgbouncer to listen');
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    url: (database) => `postgres://127.0.0.1:${port}/${database}`,
    port,
    async stop() {
      if (!exited) {
        child.kill('SIGTERM'); // immediate shutdown: clients are gone by now
        await waitFor(() => exited, 30_000, 'pgbouncer to stop');
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
