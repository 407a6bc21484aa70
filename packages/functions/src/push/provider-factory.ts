// Picks the push provider from the configuration: Expo's API (default) or the development outbox.
import type postgres from 'postgres';
import { createExpoProvider } from './expo-provider.js';
import { createOutboxProvider } from './outbox-provider.js';
import type { PushProvider } from './push-provider.js';

interface PushSettings {
  PUSH_PROVIDER: 'expo' | 'outbox';
  EXPO_PUSH_URL: string;
  EXPO_ACCESS_TOKEN?: string;
  PUSH_TIMEOUT_MS: number;
  PUSH_RETRIES: number;
  PUSH_RETRY_BACKOFF_MS: number;
  PUSH_CONCURRENCY: number;
}

export function createPushProvider(
  settings: PushSettings,
  ownerSql: postgres.Sql,
  log?: { warn(msg: string, fields?: Record<string, unknown>): void },
): PushProvider {
  if (settings.PUSH_PROVIDER === 'outbox') return createOutboxProvider(ownerSql);
  return createExpoProvider({
    url: settings.EXPO_PUSH_URL,
    accessToken: settings.EXPO_ACCESS_TOKEN,
    timeoutMs: settings.PUSH_TIMEOUT_MS,
    retries: settings.PUSH_RETRIES,
    backoffMs: settings.PUSH_RETRY_BACKOFF_MS,
    concurrency: settings.PUSH_CONCURRENCY,
    log,
  });
}

/**
 * How long a push job stays claimed without progress: every attempt of one provider request timing out, plus
 * the backoff between them, plus a margin. A killed server's jobs return to the queue after this.
 */
export function pushLeaseMs(settings: PushSettings): number {
  const attempts = settings.PUSH_RETRIES + 1;
  return settings.PUSH_TIMEOUT_MS * attempts + settings.PUSH_RETRY_BACKOFF_MS * 2 ** attempts + 5000;
}
