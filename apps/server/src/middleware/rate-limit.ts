// Rate limits of the data interface (/rest/v1): per client IP, in a minute and an hour window, with limits by the
// caller's subscription tier; heavy RPCs (analytics) count several requests. Every answer carries X-RateLimit-*
// for the window closest to running out; past a limit the answer is 429 rate_limit_exceeded with Retry-After.
import type { MiddlewareHandler } from 'hono';
import {
  memoryRateLimitStore,
  postgresRateLimitStore,
  RateLimiter,
  type RateLimitResult,
  type RateLimitRule,
} from '@auction-ops/auth-core';
import type { AppEnv, ServerContext } from '../context.js';
import { createTierCache, type Tier, type TierCache } from './rate-limit-tiers.js';
import { addGatewayHeaders, takeGatewayHeaders } from './response-headers.js';

export interface RestRateLimitOptions {
  limiter: RateLimiter;
  tiers: TierCache;
  /** Windows per tier, in the same order for every tier (the counters are per window, not per tier). */
  rules: Record<Tier, readonly RateLimitRule[]>;
  heavyRpcs: ReadonlySet<string>;
  heavyCost: number;
  /** The limiter's clock, for Retry-After. */
  now?: () => number;
}

const HEADER_NAMES = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'] as const;
const RPC_PREFIX = '/rest/v1/rpc/';

const perMinuteAndHour = (minute: number, hour: number): readonly RateLimitRule[] => [
  { limit: minute, windowSeconds: 60 },
  { limit: hour, windowSeconds: 3600 },
];

/** The limits from configuration: free and pro are fixed, enterprise is configured. */
export function restRateLimitsFromContext(ctx: ServerContext, now: () => number = Date.now): RestRateLimitOptions {
  const { config } = ctx;
  const store =
    config.RATE_LIMITS_STORE === 'postgres' ? postgresRateLimitStore(ctx.ownerSql) : memoryRateLimitStore({ now });
  return {
    limiter: new RateLimiter(store, now),
    tiers: createTierCache({
      sql: ctx.ownerSql,
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

/** The cost of a request: heavy RPCs count more. `target` is the request path with its query. */
export function requestCost(target: string, heavyRpcs: ReadonlySet<string>, heavyCost: number): number {
  if (!target.startsWith(RPC_PREFIX)) return 1;
  const q = target.indexOf('?', RPC_PREFIX.length);
  return heavyRpcs.has(target.slice(RPC_PREFIX.length, q === -1 ? undefined : q)) ? heavyCost : 1;
}

/** The window closest to running out: the fewest remaining, then the sooner reset. */
function tightest(results: readonly RateLimitResult[]): RateLimitResult {
  let best = results[0];
  for (let i = 1; i < results.length; i++) {
    const r = results[i];
    if (r.remaining < best.remaining || (r.remaining === best.remaining && r.reset < best.reset)) best = r;
  }
  return best;
}

export function restRateLimit(options: RestRateLimitOptions): MiddlewareHandler<AppEnv> {
  const { limiter, tiers, rules, heavyRpcs, heavyCost } = options;
  const now = options.now ?? Date.now;

  const decide = (
    c: Parameters<MiddlewareHandler<AppEnv>>[0],
    windows: readonly RateLimitRule[],
    results: readonly RateLimitResult[],
  ) => {
    const shown = tightest(results);
    addGatewayHeaders(c, HEADER_NAMES, [String(shown.limit), String(shown.remaining), String(shown.reset)]);
    let retryAt = 0;
    for (const r of results) if (!r.allowed && r.reset > retryAt) retryAt = r.reset;
    if (retryAt === 0) return undefined;
    const headers: Record<string, string> = {
      'content-type': 'application/json; charset=utf-8',
      'retry-after': String(Math.max(1, retryAt - Math.floor(now() / 1000))),
    };
    takeGatewayHeaders(c, headers);
    const i = results.findIndex((r) => !r.allowed);
    const seconds = windows[i].windowSeconds;
    const per = seconds === 60 ? 'minute' : seconds === 3600 ? 'hour' : `${seconds} seconds`;
    const body = {
      code: 'rate_limit_exceeded',
      details: `limit of ${results[i].limit} requests per ${per} for this address`,
      hint: 'wait until the time in Retry-After, or use a higher subscription tier',
      message: 'rate limit exceeded',
    };
    return new Response(JSON.stringify(body), { status: 429, headers });
  };

  return async (c, next) => {
    const claims = c.get('claims');
    let tier: Tier | Promise<Tier> = 'free';
    if (claims?.role === 'authenticated' && typeof claims.sub === 'string') tier = tiers.tierOf(claims.sub);
    if (typeof tier !== 'string') tier = await tier;
    const target = c.env?.incoming?.url ?? c.req.path;
    const cost = requestCost(target, heavyRpcs, heavyCost);
    const windows = rules[tier];
    let results = limiter.checkWindows('rest', c.get('clientIp'), windows, cost);
    if (!Array.isArray(results)) results = await results;
    const refused = decide(c, windows, results);
    if (refused) return refused;
    await next();
  };
}
