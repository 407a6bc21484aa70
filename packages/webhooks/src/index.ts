// Outbound webhooks: migrations (tables, fan-out trigger, admin RPCs) and the dispatcher that delivers them.
export { webhookMigrations } from './migrations.js';
export {
  createDispatcher,
  NOTIFY_CHANNEL,
  type Dispatcher,
  type DispatcherOptions,
  type DispatcherStats,
} from './dispatcher.js';
export type { DispatcherLog } from './dispatcher-log.js';
export { USER_AGENT } from './delivery-request.js';
export {
  parseRetrySchedule,
  parseRetryAfter,
  nextRetry,
  DEFAULT_RETRY_SCHEDULE,
  type RetryPolicy,
} from './retry-policy.js';
export {
  parseCidr,
  parseCidrList,
  createAddressGuard,
  embeddedIpv4,
  type Cidr,
  type AddressGuard,
} from './ssrf-guard.js';
export { signRequest, hexSignature, standardSignature, standardKey } from './signer.js';
export { syncWebhookSettings } from './settings-sync.js';
export { registerDispatcherMetrics } from './dispatcher-metrics.js';
