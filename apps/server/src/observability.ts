// Metrics and traces of one serving process: its registry with the gauges read at scrape time, GET /metrics (for
// a cluster worker, answered through the primary for every process), and, only when an OTLP endpoint is
// configured, the tracing SDK (loaded then, so tracing off costs nothing).
import {
  counterOnScrape,
  createServerMetrics,
  gaugeOnScrape,
  registerPoolGauges,
  registerQueueGauges,
  type ServerMetrics,
  workerMetrics,
} from '@auction-ops/observability';
import type { Tracing } from '@auction-ops/observability/tracing';
import { registerRealtimeMetrics, type RealtimeStats } from '@auction-ops/realtime';
import type postgres from 'postgres';
import type { Registry } from 'prom-client';
import type { AppOptions } from './app.js';
import type { Config } from '@auction-ops/server-config';
import type { ServerContext } from './context.js';
import { registerDiskFloorMetrics } from './disk-floor.js';
import { processFaults, type ProcessFaults } from './process-faults.js';
import { metricsRoutes } from './routes/metrics.js';

const FAULTS: Record<keyof ProcessFaults, [name: `${string}_total`, help: string]> = {
  escapedErrors: [
    'process_escaped_errors_total',
    'Errors that escaped every handler and were caught by the last guard',
  ],
  bodyIdleTimeouts: ['http_body_idle_timeouts_total', 'Request bodies closed for sending nothing too long'],
  clientAborts: ['http_client_aborts_total', 'Requests whose client closed the connection before the body was read'],
  workerRestarts: ['cluster_worker_restarts_total', 'Server processes the cluster primary restarted after they died'],
};

/** The process fault counters (process-faults.ts), in any registry: workers' and the cluster primary's. */
export function registerFaultCounters(registry: Registry): void {
  for (const [key, [name, help]] of Object.entries(FAULTS))
    counterOnScrape(registry, { name, help }, () => processFaults()[key as keyof ProcessFaults]);
}

/** Tracing is on when an OTLP endpoint is set (the general one or the traces one). */
const tracingConfigured = (config: Config) =>
  Boolean(config.OTEL_EXPORTER_OTLP_ENDPOINT ?? config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);

/** Tracing when configured, loading the OpenTelemetry SDK only then; `sql` is any pool of the process. */
export async function startTracingIfConfigured(config: Config, sql: postgres.Sql): Promise<Tracing | undefined> {
  if (!tracingConfigured(config)) return undefined;
  const { startTracing } = await import('@auction-ops/observability/tracing');
  return startTracing(config, [sql]);
}

/** The process's metrics, before the services are built (they record into it). */
export function createProcessMetrics(): ServerMetrics {
  const metrics = createServerMetrics();
  registerFaultCounters(metrics.registry);
  return metrics;
}

/**
 * The app's observability options. `background`: this process reports the gauges that describe the whole server
 * (queues, pools, replicas); `inCluster`: /metrics answers for every process through the primary.
 */
export async function startObservability(
  ctx: ServerContext,
  role: { background: boolean; inCluster: boolean },
  realtimeStats: () => RealtimeStats,
): Promise<{ options: AppOptions['observability']; close(): Promise<void> }> {
  const { tracing, metrics } = ctx;
  if (!metrics)
    return {
      options: tracing && { tracing: tracing.middleware },
      close: async () => {},
    };
  const { registry } = metrics;
  registerRealtimeMetrics(registry, realtimeStats);
  registerDiskFloorMetrics(registry, ctx.diskFloor, role.background);
  if (role.background) {
    registerQueueGauges(registry, ctx.ownerSql);
    registerPoolGauges(registry, ctx.ownerSql);
    gaugeOnScrape(
      registry,
      {
        name: 'db_replica_lag_seconds',
        help: 'Replay lag of each read replica (DATABASE_READ_URLS order)',
        labelNames: ['replica'],
      },
      () =>
        ctx.replicas.status().flatMap((r, i) => (r.lagMs === null ? [] : [[{ replica: String(i) }, r.lagMs / 1000]])),
    );
    gaugeOnScrape(
      registry,
      { name: 'db_replicas_in_rotation', help: 'Read replicas healthy and taking reads' },
      () => ctx.replicas.status().filter((r) => r.healthy).length,
    );
  }
  const cluster = role.inCluster ? workerMetrics(registry) : undefined;
  const metricsRoute = metricsRoutes({
    verifier: ctx.verifier,
    metricsToken: ctx.config.METRICS_TOKEN,
    scrape: cluster ? cluster.scrape : () => registry.metrics(),
    log: ctx.log,
  });
  return {
    options: {
      observe: (method, path, status, start) =>
        metrics.observeRequest(method, path, status, (performance.now() - start) / 1000),
      metricsRoute,
      tracing: tracing?.middleware,
    },
    close: async () => {
      cluster?.stop();
    },
  };
}
