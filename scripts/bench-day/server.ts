// The server under test as `pnpm start` runs it (the production build, WEB_CONCURRENCY processes, the embedded
// PostgreSQL supervised by the primary) in a temporary data directory, and the pids the bench samples and kills.
// When the run cuts the network, the request pool reaches PostgreSQL through the bench's relay; otherwise it
// connects directly, as a deployment does (the relay's hop costs every query two more socket writes and wake-ups).
import { execFileSync, spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { childPids, workerPids } from '../../apps/server/test/support/process-children.js';
import { runningClusterUrl } from '../../packages/database/src/index.js';
import { type PgRelay, startRelayProcess } from './pg-relay.js';

const START = fileURLToPath(new URL('../../apps/server/bin/start.mjs', import.meta.url));

export interface DayServer {
  url: string;
  anonKey: string;
  serviceRoleKey: string;
  dataDir: string;
  ownerUrl: string;
  /** Between the request pool and PostgreSQL, in a run with the network fault. */
  relay: PgRelay | undefined;
  primaryPid: number;
  /** The node processes the primary forked (the workers), now. */
  workerPids(): number[];
  /** The postmaster and its children (backends, background processes), now; empty while it is down. */
  postgresPids(): number[];
  postmasterPid(): number | undefined;
  /** The server's stdout (logs at warn and above) so far. */
  output(): string;
  healthy(): Promise<boolean>;
  stop(): Promise<void>;
}

/**
 * A tmpfs of `mb` on a new temporary directory (root only), for the disk fault to fill; undefined when it cannot be
 * mounted (not root, no mount), and the disk fault then says why it skips.
 */
function smallFilesystem(mb: number): { dir: string; unmount(): void } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'auction-ops-bench-day-tmpfs-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${mb}m`, 'tmpfs', dir]);
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
  return {
    dir,
    unmount() {
      try {
        execFileSync('umount', ['-l', dir]);
      } catch {
        // already gone
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function startDayServer(
  env: Record<string, string>,
  options: { tmpfsMb?: number; relay?: boolean } = {},
): Promise<DayServer> {
  // The data directory: DAY_DATA_ROOT if given, a tmpfs of its own for the disk fault, else the temp dir.
  const tmpfs = options.tmpfsMb && !process.env.DAY_DATA_ROOT ? smallFilesystem(options.tmpfsMb) : undefined;
  const dataDir = mkdtempSync(join(process.env.DAY_DATA_ROOT ?? tmpfs?.dir ?? tmpdir(), 'auction-ops-bench-day-'));
  const relay = options.relay
    ? await startRelayProcess(dataDir, (line) => process.stderr.write(`${line}\n`))
    : undefined;
  const nodeArgs = process.env.DAY_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...nodeArgs, START], {
    env: {
      ...process.env,
      LOG_LEVEL: 'warn',
      DATA_DIR: dataDir,
      PORT: '0',
      // Requests reach PostgreSQL through the relay; the owner pool, LISTEN and the health check go direct.
      ...(relay ? { DATABASE_POOLER_URL: `postgres://authenticator@127.0.0.1:${relay.port}/postgres` } : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  // DAY_SERVER_OUTPUT keeps all of it in a file too (for example what --trace-gc prints), beyond the last megabyte.
  let keep = process.env.DAY_SERVER_OUTPUT ? createWriteStream(process.env.DAY_SERVER_OUTPUT) : undefined;
  // A file that cannot be written (a bad path, a full disk) is said once and dropped; the run goes on without it.
  keep?.once('error', (error) => {
    process.stderr.write(`DAY_SERVER_OUTPUT: ${error.message}; the server's output is no longer kept\n`);
    keep = undefined;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // 'close', not 'exit': the pipes may still deliver after the process exited.
  child.once('close', () => keep?.end());
  const collect = (d: Buffer) => {
    keep?.write(d);
    out += d;
    if (out.length > 2_000_000) out = out.slice(-1_000_000);
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const started = await new Promise<{ url: string; anonKey: string; serviceRoleKey: string }>((resolve, reject) => {
    const check = () => {
      const url = /running at (\S+)/.exec(out)?.[1];
      const anonKey = /anon key:\s+(\S+)/.exec(out)?.[1];
      const serviceRoleKey = /service_role key:\s+(\S+)/.exec(out)?.[1];
      if (url && anonKey && serviceRoleKey) resolve({ url, anonKey, serviceRoleKey });
    };
    child.stdout.on('data', check);
    void exited.then(() => reject(new Error(`the server exited at start:\n${out.slice(-4000)}`)));
  }).catch(async (error) => {
    await relay?.close();
    rmSync(dataDir, { recursive: true, force: true });
    tmpfs?.unmount();
    throw error;
  });
  const postgresDir = join(dataDir, 'postgres');
  const ownerUrl = runningClusterUrl(postgresDir);
  if (!ownerUrl) throw new Error('the server started without a running embedded cluster');
  const postmasterPid = () => {
    try {
      return Number(readFileSync(join(postgresDir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]) || undefined;
    } catch {
      return undefined;
    }
  };
  const primaryPid = child.pid as number;
  return {
    ...started,
    dataDir,
    ownerUrl,
    relay,
    primaryPid,
    workerPids: () => workerPids(primaryPid),
    postgresPids: () => {
      const pm = postmasterPid();
      return pm ? [pm, ...childPids(pm)] : [];
    },
    postmasterPid,
    output: () => out,
    async healthy() {
      try {
        return (await fetch(`${started.url}/health`, { signal: AbortSignal.timeout(2_000) })).ok;
      } catch {
        return false;
      }
    },
    async stop() {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 40_000);
      await exited;
      clearTimeout(killer);
      await relay?.close();
      rmSync(dataDir, { recursive: true, force: true });
      tmpfs?.unmount();
    },
  };
}
