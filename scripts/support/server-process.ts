// The server as `pnpm start` runs it (apps/server/bin/start.mjs: the production build), in a process of its own
// with its embedded Postgres, for benchmarks whose figures must be the server's alone: its memory (peak RSS from
// /proc), its CPU by thread, and Postgres' CPU, with the load (and the baseline) coming from the benchmark's process.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runningClusterUrl } from '../../packages/database/src/index.js';

const START = fileURLToPath(new URL('../../apps/server/bin/start.mjs', import.meta.url));

export interface ServerProcess {
  url: string;
  anonKey: string;
  pid: number;
  /** The embedded cluster's superuser URL, for the benchmark's own setup and baselines. */
  ownerUrl: string;
  /** The postmaster's pid: its children are the backends. */
  postmasterPid: number;
  stop(): Promise<void>;
}

/** Starts the server with `env` (PORT=0; DATA_DIR required) and waits for the address and keys it prints. */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, [START], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let out = '';
  const started = await new Promise<{ url: string; anonKey: string }>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      const url = /running at (\S+)/.exec(out)?.[1];
      const anonKey = /anon key:\s+(\S+)/.exec(out)?.[1];
      if (url && anonKey) resolve({ url, anonKey });
    });
    void exited.then(() => reject(new Error(`the server exited at start: ${out}`)));
  });
  child.stdout.resume();
  const postgresDir = join(env.DATA_DIR, 'postgres');
  const ownerUrl = runningClusterUrl(postgresDir);
  if (!ownerUrl) throw new Error('the server started without a running embedded cluster');
  const postmasterPid = Number(readFileSync(join(postgresDir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  return {
    ...started,
    pid: child.pid as number,
    ownerUrl,
    postmasterPid,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

const CLOCK_TICKS_PER_SECOND = 100;

/** utime + stime of a process or thread from its stat file, in seconds; 0 when it is gone. */
function cpuSeconds(statPath: string): number {
  try {
    const stat = readFileSync(statPath, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** CPU seconds of a whole process, the threads that have ended included. */
export function processCpu(pid: number): number {
  return cpuSeconds(`/proc/${pid}/stat`);
}

/** CPU seconds of each thread of `pid`, by thread id. */
export function threadCpu(pid: number): Map<number, number> {
  const threads = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`))
    threads.set(Number(tid), cpuSeconds(`/proc/${pid}/task/${tid}/stat`));
  return threads;
}

/** CPU seconds of the postmaster's live children (the backends and Postgres' own processes). */
export function backendCpu(postmasterPid: number): Map<number, number> {
  const backends = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== postmasterPid) continue;
      backends.set(Number(name), cpuSeconds(`/proc/${name}/stat`));
    } catch {
      // gone meanwhile
    }
  }
  return backends;
}

/** Per-id growth between two readings (an id only in `after` counts from 0). */
export function cpuDelta(before: Map<number, number>, after: Map<number, number>): Map<number, number> {
  const delta = new Map<number, number>();
  for (const [id, seconds] of after) delta.set(id, seconds - (before.get(id) ?? 0));
  return delta;
}

/** A process's resident set now (VmRSS) and at its peak since it started (VmHWM), in bytes. */
export function residentSet(pid: number): { now: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
  return { now: kb('VmRSS'), peak: kb('VmHWM') };
}
