// The webhook dispatcher as a server worker. It gets its own owner-credential pool, separate from the request
// pools, with synchronous_commit off: a dispatcher write lost in a crash only means the delivery is attempted
// again (receivers de-duplicate by webhook_id), while the deliveries themselves are written durably by the
// transaction that caused the event. With WEBHOOK_DISPATCHER_ENABLED=false this process only keeps the SQL-side
// settings in step, and dedicated processes run the dispatcher.
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import postgres from 'postgres';
import { reconnectBackoff } from '@auction-ops/database';
import {
  createDispatcher,
  parseCidrList,
  parseRetrySchedule,
  registerDispatcherMetrics,
  syncWebhookSettings,
} from '@auction-ops/webhooks';
import type { ServerContext, Worker } from '../context.js';

export async function startWebhookWorker(ctx: ServerContext): Promise<Worker> {
  const c = ctx.config;
  await syncWebhookSettings(ctx.ownerSql, { allowHttp: c.WEBHOOK_ALLOW_HTTP });
  if (!c.WEBHOOK_DISPATCHER_ENABLED) return { name: 'webhooks', stop: async () => {} };
  const sql = postgres(ctx.ownerUrl, {
    max: 4,
    backoff: reconnectBackoff,
    onnotice: () => {},
    connection: { application_name: 'auction-ops-webhooks', synchronous_commit: 'off' },
  });
  const dispatcher = createDispatcher({
    sql,
    log: ctx.log,
    traceJob: ctx.tracing?.traceJob,
    concurrency: c.WEBHOOK_CONCURRENCY,
    perEndpointConcurrency: c.WEBHOOK_PER_ENDPOINT_CONCURRENCY,
    policy: {
      schedule: configured('WEBHOOK_RETRY_SCHEDULE', () => parseRetrySchedule(c.WEBHOOK_RETRY_SCHEDULE)),
      jitter: c.WEBHOOK_JITTER,
      retryAfterMaxSeconds: c.WEBHOOK_RETRY_AFTER_MAX_SECONDS,
    },
    timeoutMs: c.WEBHOOK_TIMEOUT_MS,
    disableAfterFailures: c.WEBHOOK_DISABLE_AFTER_FAILURES,
    allowHttp: c.WEBHOOK_ALLOW_HTTP,
    allowedCidrs: configured('WEBHOOK_ALLOWED_CIDRS', () => parseCidrList(c.WEBHOOK_ALLOWED_CIDRS)),
    pollIntervalMs: c.WEBHOOK_POLL_INTERVAL_MS,
    // Node's `ca` replaces the public roots, so the extra authorities are added to them.
    tlsCa: c.WEBHOOK_TLS_CA_FILE
      ? [...rootCertificates, readFileSync(c.WEBHOOK_TLS_CA_FILE, 'utf8')].join('\n')
      : undefined,
    logRetentionDays: c.WEBHOOK_LOG_RETENTION_DAYS,
  });
  if (ctx.metrics) registerDispatcherMetrics(ctx.metrics.registry, () => dispatcher.stats());
  try {
    await dispatcher.start();
  } catch (error) {
    await sql.end({ timeout: 1 });
    throw error;
  }
  return {
    name: 'webhooks',
    async stop() {
      await dispatcher.stop();
      await sql.end({ timeout: 5 });
    },
  };
}

/** Names the variable when a value passed the schema's format check but not the parser. */
function configured<T>(name: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new Error(`invalid configuration: ${name} ${(error as Error).message}`);
  }
}
