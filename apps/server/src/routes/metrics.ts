// GET /metrics: Prometheus text for the whole server, for a Bearer token that is METRICS_TOKEN or a service_role
// key (as Authorization or apikey); anyone else gets 401. The samples come from `scrape` (this process, or the
// whole cluster through the primary).
import { createHash, timingSafeEqual } from 'node:crypto';
import { Hono } from 'hono';
import type { TokenVerifier } from '@auction-ops/auth-core';
import type { AppEnv } from '../context.js';

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const PROMETHEUS_TEXT = 'text/plain; version=0.0.4; charset=utf-8';

interface MetricsRouteOptions {
  verifier: TokenVerifier;
  metricsToken?: string;
  scrape: () => Promise<string>;
  log: { error(message: string, fields?: Record<string, unknown>): void };
}

/** Compares digests, so neither the token's length nor its content shows in the time taken. */
const sameSecret = (a: string, b: string) =>
  timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());

async function mayRead(token: string | undefined, options: MetricsRouteOptions): Promise<boolean> {
  if (!token) return false;
  if (options.metricsToken && sameSecret(token, options.metricsToken)) return true;
  try {
    const claims = options.verifier.cached(token) ?? (await options.verifier.verify(token));
    return claims.role === 'service_role';
  } catch {
    return false;
  }
}

export function metricsRoutes(options: MetricsRouteOptions): Hono<AppEnv> {
  return new Hono<AppEnv>().get('/', async (c) => {
    const token = c.req.header('authorization')?.match(BEARER)?.[1] ?? c.req.header('apikey');
    if (!(await mayRead(token, options))) {
      c.header('www-authenticate', 'Bearer realm="metrics"');
      return c.json({ message: 'a service_role key or METRICS_TOKEN is required' }, 401);
    }
    try {
      return c.body(await options.scrape(), 200, { 'content-type': PROMETHEUS_TEXT });
    } catch (error) {
      options.log.error('metrics scrape failed', { error: (error as Error).message });
      return c.json({ message: 'metrics are not available now' }, 503);
    }
  });
}
