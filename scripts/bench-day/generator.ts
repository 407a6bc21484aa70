// A load generator process: plays its share of the plan's jobs at their times (open loop: a job starts when its
// time comes, whatever the earlier ones are still doing) and streams every request and acknowledged write to the
// orchestrator. Started by run.ts with one 'start' message; says 'done' when its last job has finished.
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
  startAt: number;
  timeoutMs: number;
  categoryIds: string[];
  photoBytes: number;
  csvBytes: number;
}

process.on('message', (m: Start | { type: 'stop' }) => {
  if (m.type === 'start') void play(m);
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
  const running = new Set<Promise<void>>();
  for (const job of start.jobs) {
    const wait = start.startAt + job.at - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const p = runJob(context, job).catch((error) => tell({ type: 'log', line: `job ${job.kind} threw: ${error}` }));
    running.add(p);
    void p.finally(() => running.delete(p));
  }
  await Promise.all(running);
  buffer.close();
  tell({ type: 'done' });
}
