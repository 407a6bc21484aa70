// Several server processes on one port (WEB_CONCURRENCY > 1, node:cluster). The primary prepares the database once
// (embedded Postgres, migrations, the JWT secret), forks the workers, restarts a crashed one with backoff, forwards
// SIGHUP, and on close drains every worker before it stops Postgres. Workers only serve; slot 0 also runs the
// background work (docs/scaling.md says why one process is enough for it).
import cluster, { type Worker as ClusterWorker } from 'node:cluster';
import { ConfigError, type Config, loadConfig } from '@auction-ops/server-config';
import { createLogger, type Logger } from './logger.js';
import { installLastGuard } from './http/last-guard.js';
import { countFault } from './process-faults.js';
import { primaryMetrics, registerStartTime } from '@auction-ops/observability';
import { Registry } from 'prom-client';
import { registerFaultCounters } from './observability.js';
import { type PreparedServer, type ProcessRole, prepareServer, type RunningServer, serveOn } from './server.js';

/** The primary's handle on the running cluster, as main.ts prints and stops it. */
export interface RunningCluster {
  url: string;
  publicUrl: string;
  anonKey: string;
  serviceRoleKey: string;
  close(): Promise<void>;
}

type ToWorker = {
  type: 'start';
  server: Omit<PreparedServer, 'close' | 'config'>;
  role: ProcessRole;
};
type ToPrimary =
  | { type: 'hello' }
  | { type: 'failed'; message: string }
  | { type: 'ready'; url: string; publicUrl: string; anonKey: string; serviceRoleKey: string };

/** A worker that lived this long before it died counts as healthy: its replacement starts without delay. */
const HEALTHY_AFTER_MS = 30_000;
const MAX_BACKOFF_MS = 30_000;
/** How long the primary waits for a draining worker before killing it. */
const STOP_TIMEOUT_MS = 30_000;

/**
 * The environment the workers get on top of the primary's: the settled port, and the rate-limit counters in
 * Postgres, since counters in memory would be per process (a client would get WEB_CONCURRENCY times its limit).
 * Refuses an explicit memory store with several processes.
 */
export function workerEnvironment(config: Config, env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  const stores = [
    ['RATE_LIMITS_STORE', config.RATE_LIMITS_ENABLED],
    ['AUTH_RATE_LIMIT_STORE', true],
  ] as const;
  for (const [name, used] of stores) {
    if (!env[name]) out[name] = 'postgres';
    else if (env[name] === 'memory' && used)
      throw new ConfigError(
        `invalid configuration: ${name}="memory" counts per process; ` +
          `with WEB_CONCURRENCY=${config.WEB_CONCURRENCY} use postgres`,
      );
  }
  return out;
}

/** Request connections of each slot: DB_POOL_SIZE split evenly, the remainder to the first slots. */
export function poolShares(total: number, processes: number): number[] {
  return Array.from({ length: processes }, (_, i) => Math.floor(total / processes) + (i < total % processes ? 1 : 0));
}

export async function startCluster(
  config: Config,
  log: Logger,
  onDatabaseLost?: (error: Error) => void,
): Promise<RunningCluster> {
  const env = workerEnvironment(config, process.env);
  const prepared = await prepareServer(config, log, onDatabaseLost);
  const settled = prepared.config;
  env.PORT = String(settled.PORT);
  const shares = poolShares(settled.DB_POOL_SIZE, settled.WEB_CONCURRENCY);
  const slots = new Map<number, ClusterWorker>();
  const crashes = new Map<number, number>();
  const restarts = new Set<NodeJS.Timeout>();
  /** Workers that reported ready, and workers to send SIGHUP when they do. */
  const serving = new Set<ClusterWorker>();
  const reloadDue = new Set<ClusterWorker>();
  let stopping = false;
  let started = false;
  // GET /metrics in any worker answers for all: the primary gathers every serving worker's samples and its own.
  const primaryRegistry = new Registry();
  registerFaultCounters(primaryRegistry);
  registerStartTime(primaryRegistry);
  const metrics = primaryMetrics(primaryRegistry, () => serving);
  let onFirstFailure: (error: Error) => void = () => {};

  // The workers take connections from the shared listening socket themselves (SCHED_NONE), not through the primary
  // (Node's default, SCHED_RR), which accepts each and hands it to one worker at a time over IPC, handing that worker
  // the next only once its event loop has acknowledged the last: a burst of new connections waited in the primary,
  // for seconds when the workers were busy (docs/scaling.md). An operator's NODE_CLUSTER_SCHED_POLICY still decides.
  if (!process.env.NODE_CLUSTER_SCHED_POLICY) cluster.schedulingPolicy = cluster.SCHED_NONE;
  const fork = (slot: number): Promise<Extract<ToPrimary, { type: 'ready' }>> =>
    new Promise((resolve) => {
      const worker = cluster.fork(env);
      const bornAt = Date.now();
      let failure = '';
      slots.set(slot, worker);
      worker.on('message', (message: ToPrimary) => {
        if (metrics.handle(worker, message)) return;
        if (message.type === 'hello') {
          // A worker that comes up while the server stops is told to stop: an earlier 'stop' may have arrived
          // before it listened.
          if (stopping) {
            worker.send({ type: 'stop' });
            return;
          }
          const start: ToWorker = {
            type: 'start',
            server: { jwtSecret: prepared.jwtSecret, ownerUrl: prepared.ownerUrl, requestUrl: prepared.requestUrl },
            role: {
              poolSize: shares[slot],
              background: slot === 0,
              nameSuffix: ` w${slot} pid ${worker.process.pid}`,
            },
          };
          worker.send(start);
        } else if (message.type === 'ready') {
          serving.add(worker);
          // A reload asked for while it started: it may have read the certificate before the files changed.
          if (reloadDue.delete(worker)) worker.process.kill('SIGHUP');
          resolve(message);
        } else if (message.type === 'failed') failure = message.message;
      });
      worker.on('exit', (code, signal) => {
        serving.delete(worker);
        reloadDue.delete(worker);
        if (slots.get(slot) === worker) slots.delete(slot);
        if (stopping) return;
        if (!started) {
          onFirstFailure(
            new Error(failure || `server worker ${slot} exited during start (${signal ?? `code ${code}`})`),
          );
          return;
        }
        // Backoff doubles with each crash in a row, so a worker that dies at start does not spin.
        const inARow = Date.now() - bornAt >= HEALTHY_AFTER_MS ? 0 : (crashes.get(slot) ?? 0) + 1;
        crashes.set(slot, inARow);
        const delay = inARow === 0 ? 0 : Math.min(MAX_BACKOFF_MS, 500 * 2 ** (inARow - 1));
        countFault('workerRestarts');
        log.error('server worker exited; restarting it', { slot, code, signal, restart_in_ms: delay });
        const timer = setTimeout(() => {
          restarts.delete(timer);
          if (!stopping) void fork(slot);
        }, delay);
        restarts.add(timer);
      });
    });

  // Only to workers that serve: one still starting has no handler yet (the signal would end it), so it gets the
  // signal once it reports ready.
  const forwardSighup = () => {
    for (const worker of slots.values()) {
      if (serving.has(worker)) worker.process.kill('SIGHUP');
      else reloadDue.add(worker);
    }
  };
  const stopAll = async () => {
    stopping = true;
    process.off('SIGHUP', forwardSighup);
    for (const timer of restarts) clearTimeout(timer);
    await Promise.all([...slots.values()].map(stopWorker));
    await prepared.close().catch((error) => log.error('shutdown step failed', { error: String(error) }));
  };

  // Workers reload their TLS certificate on SIGHUP; without TLS the signal keeps its default meaning here.
  if (settled.TLS_CERT_FILE) process.on('SIGHUP', forwardSighup);
  try {
    const failed = new Promise<never>((_, reject) => {
      onFirstFailure = reject;
    });
    const ready = await Promise.race([Promise.all(shares.map((_, slot) => fork(slot))), failed]);
    started = true;
    log.info('cluster started', { processes: shares.length, request_connections: shares });
    let closing: Promise<void> | undefined;
    const { type: _, ...first } = ready[0];
    return { ...first, close: () => (closing ??= stopAll()) };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** Asks a worker to drain and waits for it to exit; kills it if it has not within STOP_TIMEOUT_MS. */
function stopWorker(worker: ClusterWorker): Promise<void> {
  if (worker.isDead()) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => worker.process.kill('SIGKILL'), STOP_TIMEOUT_MS);
    worker.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    // A worker still starting up has no handler yet; the signal it then gets ends it just the same.
    if (worker.isConnected()) worker.send({ type: 'stop' });
    else worker.process.kill('SIGTERM');
  });
}

/** A worker's life: ask the primary for the database, serve, and drain on 'stop', a signal, or a lost primary. */
export async function runClusterWorker(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config.LOG_LEVEL);
  installLastGuard(log);
  let running: Promise<RunningServer | undefined> | undefined;
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    const server = await running?.catch(() => undefined);
    await server?.close();
    process.exit(0);
  };
  process.on('message', (message: ToWorker | { type: 'stop' }) => {
    if (message.type === 'stop') void stop();
    else if (message.type === 'start' && !running) {
      running = serveOn({ ...message.server, config }, message.role, log, true);
      running.then(
        (server) =>
          server &&
          process.send?.({
            type: 'ready',
            url: server.url,
            publicUrl: server.ctx.config.PUBLIC_URL,
            anonKey: server.ctx.anonKey,
            serviceRoleKey: server.ctx.serviceRoleKey,
          } satisfies ToPrimary),
        (error) => {
          // The primary names the reason when it gives up; the exit follows once the message is on its way.
          const message = (error as Error).message;
          log.error('server worker failed to start', { error: message });
          process.send?.({ type: 'failed', message } satisfies ToPrimary, () => process.exit(1));
        },
      );
    }
  });
  // Signals reach workers directly too (Ctrl-C signals the whole process group); a lost primary ends the worker.
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  process.on('disconnect', () => void stop());
  process.send?.({ type: 'hello' } satisfies ToPrimary);
}
