// Webhooks: the dispatcher, its retry schedule, SSRF allow-list, concurrency and log retention.
import * as v from 'valibot';
import { bool, nonEmpty, positiveInt } from './fields.js';

export const webhooksSettings = {
  // Webhooks: the dispatcher (switch it off to run dedicated dispatcher processes), its retry schedule (seconds
  // before each attempt, the first 0), jitter (fraction), SSRF allow-list, and log retention.
  WEBHOOK_DISPATCHER_ENABLED: v.optional(bool, 'true'),
  WEBHOOK_RETRY_SCHEDULE: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\s*0(\.0+)?\s*(,\s*\d+(\.\d+)?\s*)*$/, 'must be comma-separated seconds starting with 0'),
    ),
    '0,60,300,1800,7200,43200',
  ),
  /** Random spread of each retry delay (a fraction); 0 keeps the contract's schedule exact. */
  WEBHOOK_JITTER: v.optional(
    v.pipe(v.string(), v.regex(/^(0(\.\d+)?|1(\.0+)?)$/, 'must be a fraction between 0 and 1'), v.transform(Number)),
    '0',
  ),
  WEBHOOK_RETRY_AFTER_MAX_SECONDS: v.optional(positiveInt, '3600'),
  WEBHOOK_ALLOWED_CIDRS: v.optional(
    v.pipe(v.string(), v.regex(/^[0-9a-fA-F:./,\s]*$/, 'must be a comma-separated list of CIDRs')),
    '',
  ),
  WEBHOOK_ALLOW_HTTP: v.optional(bool, 'false'),
  WEBHOOK_CONCURRENCY: v.optional(positiveInt, '256'),
  WEBHOOK_PER_ENDPOINT_CONCURRENCY: v.optional(positiveInt, '8'),
  WEBHOOK_DISABLE_AFTER_FAILURES: v.optional(positiveInt, '5'),
  WEBHOOK_LOG_RETENTION_DAYS: v.optional(positiveInt, '30'),
  WEBHOOK_TIMEOUT_MS: v.optional(positiveInt, '30000'),
  WEBHOOK_POLL_INTERVAL_MS: v.optional(positiveInt, '1000'),
  // PEM file of extra certificate authorities for receivers on private networks (added to the public roots).
  WEBHOOK_TLS_CA_FILE: v.optional(nonEmpty),
};
