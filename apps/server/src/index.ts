export { startServer, type RunningServer } from './server.js';
export { loadConfig, ConfigError, type Config } from './config/index.js';
export { createLogger, type Logger } from './logger.js';
export type { ServerContext, AppEnv, Worker } from './context.js';
export { migrationSets } from './migration-sets.js';
