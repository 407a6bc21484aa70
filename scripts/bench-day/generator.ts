// A load generator process: plays its share of the plan's jobs at their times (open loop: a job starts when its
// time comes, whatever the earlier ones are still doing) and streams every request and acknowledged write to the
// orchestrator. Started by run.ts with a 'start' message, it prepares (the photo and CSV it sends) and says
// 'started'; a 'play' message then gives the time of the first job, once every generator has prepared, so that no
// generator's preparing takes the machine's CPU from the server while the others play. It says 'done' when its last
// job has finished.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { prepare, runJob } from './actions.js';
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
}

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
  const request = httpClient({
    url: start.url,
    anonKey: start.anonKey,
    timeoutMs: start.timeoutMs,
    record: (r) => buffer.push('requests', r),
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
  tell({ type: 'started' });
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
