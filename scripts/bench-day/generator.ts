// A load generator process: plays its share of the plan's jobs at their times (open loop: a job starts when its
// time comes, whatever the earlier ones are still doing) and streams every request and acknowledged write to the
// orchestrator. Started by run.ts with a 'start' message, it prepares (the photo and CSV it sends), warms up unless
// told not to (each of its admins' dashboards once, timed apart from the hour) and says 'started'; a 'play' message
// then gives the time of the first job, once every generator has prepared, so that no generator's preparing takes the
// machine's CPU from the server while the others play. It says 'done' when its last job has finished.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { type ActionContext, prepare, runJob } from './actions.js';
import { recordBuffer, tell } from './child.js';
import { httpClient } from './http-client.js';
import type { Job } from './plan.js';
import type { World } from './world.js';

interface Start {
  type: 'start';
  url: string;
  anonKey: string;
  world: World;
  jobs: Job[];
  timeoutMs: number;
  categoryIds: string[];
  photoBytes: number;
  csvBytes: number;
  /** Each admin's dashboard once before the hour (see warmUp). */
  warmup: boolean;
}

/** How many of a generator's warm-up dashboards are in flight at once. */
const WARMUP_CONCURRENCY = 8;

let playAt: (startAt: number) => void = () => {};
const played = new Promise<number>((resolve) => {
  playAt = resolve;
});

process.on('message', (m: Start | { type: 'play'; startAt: number } | { type: 'stop' }) => {
  if (m.type === 'start') void play(m);
  else if (m.type === 'play') playAt(m.startAt);
});
tell({ type: 'ready' });

async function play(start: Start) {
  const buffer = recordBuffer();
  // The warm-up's requests are timed apart; the hour's go to the orchestrator.
  const warmupMs: number[] = [];
  let warming = true;
  const request = httpClient({
    url: start.url,
    anonKey: start.anonKey,
    timeoutMs: start.timeoutMs,
    record: (r) => (warming ? warmupMs.push(r.ms) : buffer.push('requests', r)),
  });
  const context = {
    request,
    ack: (a: Parameters<typeof buffer.push<'acks'>>[1]) => buffer.push('acks', a),
    refuse: (r: Parameters<typeof buffer.push<'refusals'>>[1]) => buffer.push('refusals', r),
    world: start.world,
    categoryIds: start.categoryIds,
    photoBytes: start.photoBytes,
    csvBytes: start.csvBytes,
    channelOf: (user: number, channels: number) => user % channels,
  };
  prepare(context, start.jobs);
  const warmStart = Date.now();
  if (start.warmup) await warmUp(context, start.jobs);
  warming = false;
  tell({ type: 'started', warmupMs, warmupTookMs: Date.now() - warmStart });
  const startAt = await played;
  // A generator whose own event loop is held up times its requests late: say so, for the reader of its figures.
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const watch = setInterval(() => {
    const maxMs = delay.max / 1e6;
    if (maxMs > 200)
      tell({
        type: 'log',
        line: `own event loop held up to ${Math.round(maxMs)} ms in the 5 s to ${Math.round((Date.now() - startAt) / 1000)} s`,
      });
    delay.reset();
  }, 5_000);
  const running = new Set<Promise<void>>();
  for (const job of start.jobs) {
    const wait = startAt + job.at - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const p = runJob(context, job).catch((error) => tell({ type: 'log', line: `job ${job.kind} threw: ${error}` }));
    running.add(p);
    void p.finally(() => running.delete(p));
  }
  await Promise.all(running);
  clearInterval(watch);
  delay.disable();
  buffer.close();
  tell({ type: 'done' });
}

/**
 * Each admin of this generator's share refreshes their dashboard once (reads only: the audit counts every write).
 * The hour otherwise began on a server that had just started: the first run of each statement on each database
 * connection, of each code path in each process, and the generators' first connections all fell on its first
 * seconds, which then measured a restart rather than the day. The orchestrator prints these requests' times: that
 * is the restart's cost.
 */
async function warmUp(c: ActionContext, jobs: Job[]): Promise<void> {
  const admins = new Map<string, Extract<Job, { kind: 'refresh' }>>();
  for (const j of jobs) if (j.kind === 'refresh') admins.set(`${j.auction}/${j.user}`, { ...j, at: 0 });
  const queue = [...admins.values()];
  await Promise.all(
    Array.from({ length: WARMUP_CONCURRENCY }, async () => {
      for (let job = queue.shift(); job; job = queue.shift()) await runJob(c, job);
    }),
  );
}
