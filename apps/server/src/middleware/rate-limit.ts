// Rate limits of the data interface (/rest/v1): per client IP, in a minute and an hour window, with limits by the
// caller's subscription tier; heavy RPCs (analytics) count several requests. Every answer carries X-RateLimit-*
// for the window closest to running out; past a limit the answer is 429 rate_limit_exceeded with Retry-After.
// The limiter, store and tier cache are built in the composition root (services/rate-limit-services.ts).
import type { MiddlewareHandler } from 'hono';
import type { RateLimiter, RateLimitResult, RateLimitRule } from '@auction-ops/auth-core';
import type { AppEnv } from '../context.js';
import type { Tier, TierCache } from '../services/tier-cache.js';
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

/** The cost of a request: heavy RPCs count more. `target` is the request path with its query. */
function requestCost(target: string, heavyRpcs: ReadonlySet<string>, heavyCost: number): number {
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

type Ctx = Parameters<MiddlewareHandler<AppEnv>>[0];
/** A check run by the gateway after its API-key gate: a Response refuses the request. */
type GatewayCheck = (c: Ctx) => Response | undefined | Promise<Response | undefined>;

/** The rate limit as the gateway's after-gate check (one async layer less per request than a middleware). */
export function restRateLimitCheck(options: RestRateLimitOptions): GatewayCheck {
  const { limiter, tiers, rules, heavyRpcs, heavyCost } = options;
  const now = options.now ?? Date.now;

  const limitFor = (c: Ctx, tier: Tier): Response | undefined | Promise<Response | undefined> => {
    const target = c.env?.incoming?.url ?? c.req.path;
    const cost = requestCost(target, heavyRpcs, heavyCost);
    const windows = rules[tier];
    const results = limiter.checkWindows('rest', c.get('clientIp'), windows, cost);
    return Array.isArray(results) ? decide(c, windows, results) : results.then((r) => decide(c, windows, r));
  };

  const decide = (c: Ctx, windows: readonly RateLimitRule[], results: readonly RateLimitResult[]) => {
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

  // Synchronous whenever the tier is cached and the store is in memory: no promise on the common path.
  return (c) => {
    const claims = c.get('claims');
    let tier: Tier | Promise<Tier> = 'free';
    if (claims?.role === 'authenticated' && typeof claims.sub === 'string') tier = tiers.tierOf(claims.sub);
    if (typeof tier !== 'string') return tier.then((t) => limitFor(c, t));
    return limitFor(c, tier);
  };
}
