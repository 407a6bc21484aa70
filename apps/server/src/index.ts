// The server as a module: `startServer` and what it takes. The production build bundles this beside main.ts, and the
// benchmarks and production-build.test.ts load the configuration loader and the migration sets from that build too.
export { startServer, type RunningServer } from './server.js';
export { loadConfig, ConfigError, type Config } from '@auction-ops/server-config';
export { createLogger, type Logger } from './logger.js';
export type { ServerContext, AppEnv, Worker } from './context.js';
export { migrationSets } from '@auction-ops/server-config/migration-sets';
