// The data interface's rate limits as a service: the limiter over its store (memory, or postgres to share counters
// between instances), the subscription-tier cache and the limits by tier, all from configuration. The gateway's
// check (middleware/rate-limit.ts) only applies them to requests; docs/limits.md describes the rules.
import { memoryRateLimitStore, postgresRateLimitStore, RateLimiter, type RateLimitRule } from '@auction-ops/auth-core';
import type { ServerContext } from '../context.js';
import type { RestRateLimitOptions } from '../middleware/rate-limit.js';
import { createTierCache } from './tier-cache.js';

const perMinuteAndHour = (minute: number, hour: number): readonly RateLimitRule[] => [
  { limit: minute, windowSeconds: 60 },
  { limit: hour, windowSeconds: 3600 },
];

/** The limits from configuration: free and pro are fixed, enterprise is configured. */
export function createRestRateLimits(ctx: ServerContext, now: () => number = Date.now): RestRateLimitOptions {
  const { config } = ctx;
  const store =
    config.RATE_LIMITS_STORE === 'postgres'
      ? postgresRateLimitStore(ctx.ownerRequestSql)
      : memoryRateLimitStore({ now });
  return {
    limiter: new RateLimiter(store, now),
    tiers: createTierCache({
      sql: ctx.ownerRequestSql,
      ttlMs: config.RATE_LIMITS_TIER_CACHE_SECONDS * 1000,
      now,
      onError: (error) => ctx.log.warn('rate-limit tier lookup failed', { error: String(error) }),
    }),
    rules: {
      free: perMinuteAndHour(60, 1000),
      pro: perMinuteAndHour(300, 10_000),
      enterprise: perMinuteAndHour(config.RATE_LIMITS_ENTERPRISE_PER_MINUTE, config.RATE_LIMITS_ENTERPRISE_PER_HOUR),
    },
    heavyRpcs: new Set(
      config.RATE_LIMITS_HEAVY_RPCS.split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
    heavyCost: config.RATE_LIMITS_HEAVY_COST,
    now,
  };
}
