// Public surface of @auction-ops/functions: the nine functions with their dispatcher, the migration sets, and
// the workers and providers the server starts.
export { notificationMigrations } from './notify/notification-migrations.js';
export { reportingMigrations } from './reporting/reporting-migrations.js';
export type { PushMessage, PushProvider, PushTicket, PushPriority } from './push/push-provider.js';
export { EXPO_PUSH_URL } from './push/expo-provider.js';
export { listPushOutbox, type PushOutboxEntry } from './push/outbox-provider.js';
export { createPushProvider, pushLeaseMs } from './push/provider-factory.js';
export { createJobWorker, type JobWorker } from './notify/job-worker.js';
export { startPendingScheduler, type PendingScheduler } from './notify/pending-scheduler.js';
export { FunctionError } from './errors.js';
export { createFunctionDispatcher, type FunctionDispatcher } from './family/function-dispatcher.js';
export { allFunctions, type FunctionDeps } from './registry.js';
export { QueryCache } from './reporting/query-cache.js';
export { SharedQueryCache } from './reporting/shared-query-cache.js';
export { recoverAbandonedImports } from './reporting/import/dataset-import.js';
export { prepareParseWorker } from './reporting/import/parse-worker.js';
