// Public surface of @auction-ops/functions: the nine functions with their dispatcher, the migration sets, and
// the workers and providers the server starts.
export { notificationMigrations } from './notify/notification-migrations.js';
export type { PushMessage, PushProvider, PushTicket, PushPriority } from './push/push-provider.js';
export { createExpoProvider, EXPO_PUSH_URL } from './push/expo-provider.js';
export { createOutboxProvider, listPushOutbox, type PushOutboxEntry } from './push/outbox-provider.js';
export { createJobWorker, type JobWorker, type JobWorkerOptions } from './notify/job-worker.js';
export { runPendingCheck, type PendingCheckResult } from './notify/pending-check.js';
export { startPendingScheduler, type PendingScheduler } from './notify/pending-scheduler.js';
export { createPushProvider, pushLeaseMs, type PushSettings } from './push/provider-factory.js';
export { NOTIFY_FUNCTIONS, type NotifyDeps, type NotifyHandler } from './notify/notify-handlers.js';
export { FunctionError, functionErrors } from './errors.js';
export {
  createFunctionDispatcher,
  type DispatchInput,
  type FunctionDispatcher,
} from './family/function-dispatcher.js';
export type { Caller, FunctionAccess, FunctionDefinition } from './family/function-definition.js';
export { allFunctions, type FunctionDeps } from './registry.js';
export { reportingMigrations } from './reporting/reporting-migrations.js';
export { QueryCache } from './reporting/query-cache.js';
export { validateReportSql, type Validation } from './reporting/sql-validator.js';
export { recoverAbandonedImports } from './reporting/import/dataset-import.js';
export type { LlmSettings } from './reporting/llm-client.js';
