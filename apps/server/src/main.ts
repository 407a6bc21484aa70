// Entry point: `pnpm start`. Validates configuration, starts the service (one process, or WEB_CONCURRENCY processes
// on one port), prints the API keys once, and shuts down cleanly on SIGINT/SIGTERM.
import cluster from 'node:cluster';
import { loadConfig, ConfigError, type Config } from '@auction-ops/server-config';
import { createLogger } from './logger.js';
import { warnOfOldNode } from './node-support.js';
import { installLastGuard } from './http/last-guard.js';
import { startServer } from './server.js';
import { type RunningCluster, runClusterWorker, startCluster, workerEnvironment } from './cluster.js';
import { startedByPackageManager, watchParent } from './parent-watch.js';
import { version } from './version.js';
import { writeServerInfo } from '@auction-ops/database';

if (cluster.isWorker) await runClusterWorker();
else await runPrimary();

async function runPrimary(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
    if (config.WEB_CONCURRENCY > 1) workerEnvironment(config, process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const log = createLogger(config.LOG_LEVEL);
  // A single process serves requests itself; a cluster's primary only supervises, but a guard costs nothing there.
  installLastGuard(log);
  // The embedded PostgreSQL could not be kept running: stop in order and exit non-zero for a supervisor to act.
  const onDatabaseLost = () => void stop('database lost', 1);
  const starting: Promise<RunningCluster> =
    config.WEB_CONCURRENCY > 1
      ? startCluster(config, log, onDatabaseLost)
      : startServer(config, log, onDatabaseLost).then((s) => ({
          url: s.url,
          publicUrl: s.ctx.config.PUBLIC_URL,
          anonKey: s.ctx.anonKey,
          serviceRoleKey: s.ctx.serviceRoleKey,
          close: s.close,
        }));

  // Installed before start-up finishes: a signal during start-up (migrations, workers) waits for it, then stops
  // everything in order instead of killing the process with Postgres still running.
  let stopping = false;
  let forgetServer = () => {};
  const stop = async (reason: string, code = 0) => {
    if (stopping) return;
    stopping = true;
    log[code === 0 ? 'info' : 'error']('shutting down', { reason });
    const server = await starting.catch(() => undefined);
    await server?.close();
    forgetServer();
    log.info('stopped');
    process.exit(code);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  if (startedByPackageManager()) watchParent(() => void stop('the package manager that started the server exited'));

  try {
    const server = await starting;
    forgetServer = writeServerInfo(config.DATA_DIR, {
      pid: process.pid,
      url: server.url,
      version,
      processes: config.WEB_CONCURRENCY,
      started_at: new Date().toISOString(),
    });
    log.info('listening', {
      version,
      node: process.version,
      url: server.url,
      public_url: server.publicUrl,
      data_dir: config.DATA_DIR,
      processes: config.WEB_CONCURRENCY,
    });
    warnOfOldNode(log, process.versions.node);
    process.stdout.write(
      `\nauction-ops ${version} is running at ${server.url}\n  anon key:         ${server.anonKey}\n` +
        `  service_role key: ${server.serviceRoleKey}\n\n`,
    );
  } catch (error) {
    log.error('failed to start', { error: (error as Error).message });
    process.stderr.write(`auction-ops failed to start: ${(error as Error).message}\n`);
    process.exit(1);
  }
}
