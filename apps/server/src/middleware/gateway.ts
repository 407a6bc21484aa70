// The gateway in front of every path family, as one middleware: request id and log line, CORS, client IP, API-key
// gate and claims. One middleware instead of four: each extra async layer cost about 5 µs per request.
import type { Context, MiddlewareHandler } from 'hono';
import type { TokenVerifier } from '@auction-ops/auth-core';
import type { AvailabilityMonitor } from '@auction-ops/database';
import type { AppEnv } from '../context.js';
import type { Logger } from '../logger.js';
import { checkApiKey } from './api-key.js';
import { databaseUnavailable } from './database-gate.js';
import { clientIpOf, parseCidrs } from './client-ip.js';
import { CORS_NAMES, idAndCorsValues, preflight } from './cors.js';
import { logRequest, requestIdOf } from './request-log.js';
import { offerGatewayHeaders, settleGatewayHeaders } from './response-headers.js';

interface GatewayOptions {
  log: Logger;
  verifier: TokenVerifier;
  /** Comma-separated CIDRs of proxies whose X-Forwarded-For is believed. */
  trustedProxyCidrs: string;
  /** /auth/v1 without an `apikey` passes as anon (a bare GoTrue; AUTH_REQUIRE_APIKEY=false). */
  authWithoutKey?: boolean;
  /** While it says the database is down, the families answer 503 at once (see database-gate.ts). */
  database?: AvailabilityMonitor;
  /**
   * A check after the API-key gate for paths under `prefix` (the data interface's rate limits); a Response refuses
   * the request. Here rather than as a middleware: each async layer costs several µs per request.
   */
  afterGate?: {
    prefix: string;
    check: (c: Context<AppEnv>) => Response | undefined | Promise<Response | undefined>;
  };
  /** Hears every answered request with its status and start time (the request metrics). */
  observe?: (method: string, path: string, status: number, start: number) => void;
}

const NAMES = ['x-request-id', ...CORS_NAMES];

export function gateway(options: GatewayOptions): MiddlewareHandler<AppEnv> {
  const { log, verifier, afterGate, database, observe } = options;
  const finish = (c: Context<AppEnv>, id: string, start: number, status: number) => {
    logRequest(log, c, id, start, status);
    observe?.(c.req.method, c.req.path, status, start);
  };
  const trustedProxies = parseCidrs(options.trustedProxyCidrs);
  const anyTrusted = options.trustedProxyCidrs.trim() !== '';
  return async (c, next) => {
    const start = performance.now();
    const id = requestIdOf(c);
    c.set('requestId', id);
    const early = preflight(c);
    if (early) {
      early.headers.set('x-request-id', id);
      finish(c, id, start, early.status);
      return early;
    }
    offerGatewayHeaders(c, NAMES, idAndCorsValues(c, id));
    c.set('clientIp', clientIpOf(c, trustedProxies, anyTrusted));
    let refused = (database && databaseUnavailable(c, database)) ?? checkApiKey(c, verifier, options.authWithoutKey);
    // A promise only when a token was not verified before: the common case awaits nothing here.
    if (refused instanceof Promise) refused = await refused;
    const limited = refused ?? (afterGate && c.req.path.startsWith(afterGate.prefix) ? afterGate.check(c) : undefined);
    const answer = limited instanceof Promise ? await limited : limited;
    if (answer) {
      settleGatewayHeaders(c, answer);
      finish(c, id, start, answer.status);
      return answer;
    }
    await next();
    settleGatewayHeaders(c, c.res);
    finish(c, id, start, c.res.status);
  };
}
