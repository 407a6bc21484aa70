// The HTTP surface: gateway middleware, then one Hono app per path family. Errors are rendered by each family.
import { Hono, type MiddlewareHandler } from 'hono';
import type { AppEnv, ServerContext } from './context.js';
import { gateway } from './middleware/gateway.js';
import { isBodyBreakOff } from './http/body-watch.js';
import { healthRoutes } from './routes/health.js';
import { type RestRateLimitOptions, restRateLimitCheck } from './middleware/rate-limit.js';
import { httpsOnly } from './tls/https-only.js';
import type { Transport } from './tls/transport-policy.js';

export interface Families {
  auth: Hono<AppEnv>;
  rest: Hono<AppEnv>;
  storage: Hono<AppEnv>;
  functions: Hono<AppEnv>;
  realtime: Hono<AppEnv>;
  console: Hono;
}

export interface AppOptions {
  /** The connection's transport: when given, plain requests that should be HTTPS are refused. */
  transport?: Transport;
  /** The data interface's rate limits (built by the composition root); none when disabled. */
  restRateLimits?: RestRateLimitOptions;
  /** Metrics and traces (see observability.ts): the request observer, GET /metrics, and the tracing middleware. */
  observability?: {
    observe?: (method: string, path: string, status: number, start: number) => void;
    metricsRoute?: Hono<AppEnv>;
    tracing?: MiddlewareHandler<AppEnv>;
  };
}

export function createApp(ctx: ServerContext, families: Families, options: AppOptions = {}): Hono<AppEnv> {
  const { transport, restRateLimits, observability } = options;
  const app = new Hono<AppEnv>();
  const { config } = ctx;
  // First, so the request's span covers everything after it, refusals included.
  if (observability?.tracing) app.use('*', observability.tracing);
  // HTTPS only (426 for plain requests, HSTS); nothing to check for local development (see tls/https-only.ts).
  const https =
    transport &&
    httpsOnly({
      transport,
      trustedProxyCidrs: config.TRUSTED_PROXY_CIDRS,
      hstsMaxAgeSeconds: config.HSTS_MAX_AGE_SECONDS,
    });
  if (https) app.use('*', https);
  // Request id and log, CORS, client IP, API-key gate and claims (see middleware/gateway.ts).
  // The data interface's rate limits run inside it, after the API-key gate (see middleware/rate-limit.ts).
  const afterGate = restRateLimits && { prefix: '/rest/v1', check: restRateLimitCheck(restRateLimits) };
  app.use(
    '*',
    gateway({
      log: ctx.log,
      verifier: ctx.verifier,
      trustedProxyCidrs: ctx.config.TRUSTED_PROXY_CIDRS,
      authWithoutKey: !ctx.config.AUTH_REQUIRE_APIKEY,
      database: ctx.database,
      afterGate,
      observe: observability?.observe,
    }),
  );
  if (observability?.metricsRoute) app.route('/metrics', observability.metricsRoute);
  app.route('/health', healthRoutes(ctx));
  app.route('/auth/v1', families.auth);
  app.route('/rest/v1', families.rest);
  app.route('/storage/v1', families.storage);
  app.route('/functions/v1', families.functions);
  app.route('/realtime/v1', families.realtime);
  app.route('/console', families.console);
  app.notFound((c) => c.json({ message: 'no route matches this request' }, 404));
  app.onError((error, c) => {
    // A client gone mid-body is logged at info by the body watch; nobody reads this answer.
    if (isBodyBreakOff(error)) return c.json({ message: 'request closed' }, 400);
    ctx.log.error('unhandled error', { id: c.get('requestId'), error: error.message, stack: error.stack });
    return c.json({ message: 'internal server error' }, 500);
  });
  return app;
}
