// The faults of `--faults`, injected into the running day: each one acts, waits for its end (the service answering
// again, the worker replaced, the receiver or the network back) and says when it started and ended; the run then
// measures the time until service levels hold again and checks what requests met meanwhile.
import { execFileSync } from 'node:child_process';
import { rmSync, statfsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Child } from './child.js';
import type { FaultName } from './profile.js';
import type { DayServer } from './server.js';

export interface FaultContext {
  server: DayServer;
  receivers: Child;
  log: (line: string) => void;
}

export interface FaultWindow {
  name: FaultName;
  start: number;
  end: number;
  skipped?: string;
  note?: string;
}

/** Polls `check` every 100 ms until it holds; false after `timeoutMs`. */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function postgresSigkill(ctx: FaultContext): Promise<Omit<FaultWindow, 'name'>> {
  const pid = ctx.server.postmasterPid();
  if (!pid) return { start: Date.now(), end: Date.now(), skipped: 'no postmaster pid' };
  const start = Date.now();
  process.kill(pid, 'SIGKILL');
  await until(async () => !(await ctx.server.healthy()), 5_000);
  const back = await until(() => ctx.server.healthy(), 90_000);
  return { start, end: Date.now(), note: back ? undefined : 'the service did not answer /health within 90 s' };
}

async function workerSigkill(ctx: FaultContext): Promise<Omit<FaultWindow, 'name'>> {
  const before = ctx.server.workerPids();
  // The first worker is slot 0, which also runs the background work (webhook dispatcher, scheduler).
  const victim = before[0];
  if (!victim) return { start: Date.now(), end: Date.now(), skipped: 'no worker process' };
  const start = Date.now();
  process.kill(victim, 'SIGKILL');
  const back = await until(() => {
    const now = ctx.server.workerPids();
    return now.length >= before.length && !now.includes(victim);
  }, 60_000);
  await until(() => ctx.server.healthy(), 30_000);
  return { start, end: Date.now(), note: back ? undefined : 'the worker was not replaced within 60 s' };
}

async function receiverDown(ctx: FaultContext, seconds: number): Promise<Omit<FaultWindow, 'name'>> {
  const start = Date.now();
  ctx.receivers.send({ type: 'down', index: 0 });
  await sleep(seconds * 1000);
  ctx.receivers.send({ type: 'up', index: 0 });
  return { start, end: Date.now() };
}

async function networkCut(ctx: FaultContext, seconds: number): Promise<Omit<FaultWindow, 'name'>> {
  const relay = ctx.server.relay;
  if (!relay) throw new Error('the network fault needs the server started with the relay');
  const start = Date.now();
  await relay.cut();
  await sleep(seconds * 1000);
  await relay.restore();
  return { start, end: Date.now() };
}

/** The disk fault fills a data directory only on a tmpfs (statfs type), never a real disk: run.ts mounts one of
 * diskFaultTmpfsMb(K) when root, or DAY_DATA_ROOT names one. */
const TMPFS_MAGIC = 0x01021994;
/** Room for the cluster, its WAL and K hours' photos (400 x 2 MB at K = 1), before the fault fills the rest. */
export const diskFaultTmpfsMb = (k: number) => Math.round(1536 + 1024 * k);
/** The floor run.ts sets (DISK_FREE_FLOOR_MB); the fault fills the tmpfs to below it. */
export const DISK_FAULT_FLOOR_MB = 256;

async function diskFull(ctx: FaultContext, seconds: number): Promise<Omit<FaultWindow, 'name'>> {
  const start = Date.now();
  const fs = statfsSync(ctx.server.dataDir);
  const freeMb = (fs.bavail * fs.bsize) / 2 ** 20;
  if (fs.type !== TMPFS_MAGIC)
    return {
      start,
      end: start,
      skipped: 'the data directory is not on a tmpfs (run as root, or set DAY_DATA_ROOT to one)',
    };
  // Fill to below the floor, hold, then free it again.
  const filler = join(ctx.server.dataDir, 'disk-fault-filler');
  const fillMb = Math.max(0, Math.floor(freeMb - DISK_FAULT_FLOOR_MB / 2));
  try {
    execFileSync('fallocate', ['-l', `${fillMb}M`, filler]);
  } catch {
    writeFileSync(filler, Buffer.alloc(fillMb * 2 ** 20));
  }
  await sleep(seconds * 1000);
  rmSync(filler, { force: true });
  return { start, end: Date.now() };
}

export async function injectFault(
  name: FaultName,
  seconds: number | undefined,
  ctx: FaultContext,
): Promise<FaultWindow> {
  ctx.log(`fault ${name}: start`);
  const window =
    name === 'postgres-sigkill'
      ? await postgresSigkill(ctx)
      : name === 'worker-sigkill'
        ? await workerSigkill(ctx)
        : name === 'receiver-down'
          ? await receiverDown(ctx, seconds ?? 20)
          : name === 'network-cut'
            ? await networkCut(ctx, seconds ?? 20)
            : await diskFull(ctx, seconds ?? 15);
  ctx.log(
    `fault ${name}: ${window.skipped ? `skipped (${window.skipped})` : `ended after ${((window.end - window.start) / 1000).toFixed(1)} s`}`,
  );
  return { name, ...window };
}
