// Outbound webhooks: migrations (tables, fan-out trigger, admin RPCs) and the dispatcher that delivers them.
export { webhookMigrations } from './migrations.js';
export {
  createDispatcher,
  USER_AGENT,
  NOTIFY_CHANNEL,
  type Dispatcher,
  type DispatcherOptions,
  type DispatcherLog,
  type DispatcherStats,
} from './dispatcher.js';
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
