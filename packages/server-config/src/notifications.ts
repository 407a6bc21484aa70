// Notifications: the push provider (Expo or the development outbox), its timeouts and retries, and the
// overdue-submission scheduler.
import * as v from 'valibot';
import { bool, nonEmpty, positiveInt, url, wholeNumber } from './fields.js';

export const notificationsSettings = {
  PUSH_PROVIDER: v.optional(v.picklist(['expo', 'outbox'], 'must be expo or outbox'), 'expo'),
  EXPO_PUSH_URL: v.optional(url, 'https://exp.host/--/api/v2/push/send'),
  EXPO_ACCESS_TOKEN: v.optional(nonEmpty),
  PUSH_TIMEOUT_MS: v.optional(positiveInt, '10000'),
  PUSH_RETRIES: v.optional(wholeNumber, '3'),
  PUSH_RETRY_BACKOFF_MS: v.optional(positiveInt, '500'),
  PUSH_CONCURRENCY: v.optional(positiveInt, '4'),
  PENDING_CHECK_ENABLED: v.optional(bool, 'true'),
  // Minutes between runs; fractions are accepted (tests run it every few seconds).
  PENDING_CHECK_INTERVAL_MINUTES: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d+(\.\d+)?$/, 'must be a number of minutes'),
      v.transform(Number),
      v.minValue(0.01, 'must be at least 0.01'),
    ),
    '15',
  ),
};
