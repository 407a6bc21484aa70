// The background worker of the push job queue: wakes on NOTIFY notification_jobs (sent at commit by the
// event-outbox trigger) and polls as a fallback, claims due jobs with FOR UPDATE SKIP LOCKED under a lease and
// runs a few at a time. Several servers may run it against one database; a crashed worker's jobs return to the
// queue when their lease runs out, and the tokens already accepted are not sent again.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type postgres from 'postgres';
import { createWakeableSleep } from '@auction-ops/database';
import type { PushProvider } from '../push/push-provider.js';
import { createJobStore } from './job-store.js';
import { runJob, type JobDeps } from './job-runner.js';

const JOBS_CHANNEL = 'notification_jobs';

interface JobWorkerOptions {
  sql: postgres.Sql;
  /** Runs each job inside a unit of work of its own (the server's tracing: one trace per push job). */
  traceJob?: <T>(name: string, work: () => Promise<T>) => Promise<T>;
  provider: PushProvider;
  appUrl: string;
  log: JobDeps['log'] & { info(msg: string, fields?: Record<string, unknown>): void };
  /** Jobs run at once. */
  concurrency?: number;
  pollIntervalMs?: number;
  /** How long a claim is ours without progress; extended after each group of messages. */
  leaseMs: number;
  retentionDays?: number;
  /** How long stop() waits for jobs in flight. */
  stopGraceMs?: number;
}

export interface JobWorker {
  readonly workerId: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  wake(): void;
}

export function createJobWorker(options: JobWorkerOptions): JobWorker {
  const workerId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const store = createJobStore(options.sql);
  const deps: JobDeps = { ...options, store, workerId };
  const concurrency = options.concurrency ?? 8;
  const pollMs = options.pollIntervalMs ?? 1000;
  const running = new Set<Promise<void>>();
  let active = false;
  const waker = createWakeableSleep();
  let unlisten: (() => Promise<void>) | undefined;
  let loopDone: Promise<void> = Promise.resolve();
  let pruneTimer: NodeJS.Timeout | undefined;

  const wake = waker.wake;
  const sleep = waker.sleep;

  async function loop() {
    while (active) {
      waker.consume();
      let waitMs = pollMs;
      try {
        const free = concurrency - running.size;
        if (free > 0) {
          const jobs = await store.claim(workerId, free, options.leaseMs);
          for (const job of jobs) {
            const run = options.traceJob ? options.traceJob('push job', () => runJob(deps, job)) : runJob(deps, job);
            const p = run
              .then(() => undefined)
              .catch((error) => options.log.warn('push job failed', { job_id: job.id, error: String(error) }))
              .finally(() => {
                running.delete(p);
                wake();
              });
            running.add(p);
          }
          if (jobs.length === free) continue;
          const due = jobs.length > 0 ? undefined : await store.nextDueInMs();
          if (due !== undefined) waitMs = Math.min(pollMs, Math.max(10, due));
        }
      } catch (error) {
        if (!active) return;
        options.log.warn('push job claim failed', { error: String(error) });
      }
      await sleep(waitMs);
    }
  }

  async function prune() {
    try {
      await store.prune(options.retentionDays ?? 30);
    } catch (error) {
      options.log.warn('push job pruning failed', { error: String(error) });
    }
  }

  return {
    workerId,
    wake,
    async start() {
      if (active) return;
      active = true;
      const sub = await options.sql.listen(JOBS_CHANNEL, wake, wake);
      unlisten = sub.unlisten;
      loopDone = loop();
      pruneTimer = setInterval(() => void prune(), 3_600_000).unref();
      options.log.info('push job worker started', { worker: workerId, provider: options.provider.name });
    },
    async stop() {
      if (!active) return;
      active = false;
      clearInterval(pruneTimer);
      wake();
      await unlisten?.().catch(() => {});
      await loopDone;
      // Jobs in flight get a few seconds to finish; one still waiting on the provider is left to its lease, which
      // returns it to the queue, and the tokens it had sent are recorded already.
      const grace = new Promise((r) => setTimeout(r, options.stopGraceMs ?? 5000).unref());
      await Promise.race([Promise.allSettled([...running]), grace]);
    },
  };
}
