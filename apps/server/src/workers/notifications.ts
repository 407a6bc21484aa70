// The notification workers: the push job worker (chat messages and submission pushes queued by the event
// outbox) and the overdue-submission scheduler (PENDING_CHECK_ENABLED). They share one owner-credential pool of
// their own, apart from the request pools.
import postgres from 'postgres';
import { reconnectBackoff } from '@auction-ops/database';
import { createJobWorker, createPushProvider, pushLeaseMs, startPendingScheduler } from '@auction-ops/functions';
import type { ServerContext, Worker } from '../context.js';

export async function startNotificationWorker(ctx: ServerContext): Promise<Worker> {
  const c = ctx.config;
  const sql = postgres(ctx.ownerUrl, {
    max: 4,
    backoff: reconnectBackoff,
    onnotice: () => {},
    connection: { application_name: 'auction-ops-notifications' },
  });
  const provider = createPushProvider(c, sql, ctx.log);
  const worker = createJobWorker({
    sql,
    provider,
    appUrl: c.APP_URL,
    log: ctx.log,
    leaseMs: pushLeaseMs(c),
    traceJob: ctx.tracing?.traceJob,
  });
  try {
    await worker.start();
  } catch (error) {
    await sql.end({ timeout: 1 });
    throw error;
  }
  const scheduler = c.PENDING_CHECK_ENABLED
    ? startPendingScheduler({ sql, provider, log: ctx.log }, c.PENDING_CHECK_INTERVAL_MINUTES)
    : undefined;
  return {
    name: 'notifications',
    async stop() {
      await scheduler?.stop();
      await worker.stop();
      await sql.end({ timeout: 5 });
    },
  };
}
