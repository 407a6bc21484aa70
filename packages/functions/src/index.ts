// Public surface of @auction-ops/functions (notifications part; the reporting part adds its own exports).
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
