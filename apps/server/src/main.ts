// Entry point: `pnpm start`. Validates configuration, starts the service, prints the API keys,
// and shuts down cleanly on SIGINT/SIGTERM.
import { loadConfig, ConfigError } from './config/index.js';
import { createLogger } from './logger.js';
import { startServer } from './server.js';

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  throw error;
}
const log = createLogger(config.LOG_LEVEL);
const starting = startServer(config, log);

// Installed before start-up finishes: a signal during start-up (migrations, workers) waits for it, then stops
// everything in order instead of killing the process with Postgres still running.
let stopping = false;
const stop = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  log.info('shutting down', { signal });
  const server = await starting.catch(() => undefined);
  await server?.close();
  log.info('stopped');
  process.exit(0);
};
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));

try {
  const server = await starting;
  log.info('listening', { url: server.url, public_url: server.ctx.config.PUBLIC_URL, data_dir: config.DATA_DIR });
  process.stdout.write(
    `\nauction-ops is running at ${server.url}\n  anon key:         ${server.ctx.anonKey}\n  service_role key: ${server.ctx.serviceRoleKey}\n\n`,
  );
} catch (error) {
  log.error('failed to start', { error: (error as Error).message });
  process.stderr.write(`auction-ops failed to start: ${(error as Error).message}\n`);
  process.exit(1);
}
