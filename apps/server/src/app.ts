// The HTTP surface: gateway middleware, then one Hono app per path family. Errors are rendered by each family.
import { Hono } from 'hono';
import type { AppEnv, Mounted, ServerContext } from './context.js';
import { gateway } from './middleware/gateway.js';
import { healthRoutes } from './routes/health.js';

export interface Families {
  auth: Mounted;
  rest: Mounted;
  storage: Mounted;
  functions: Mounted;
}

export function createApp(ctx: ServerContext, families: Families): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // Request id and log, CORS, client IP, API-key gate and claims (see middleware/gateway.ts).
  app.use('*', gateway({ log: ctx.log, verifier: ctx.verifier, trustedProxyCidrs: ctx.config.TRUSTED_PROXY_CIDRS }));
  app.route('/health', healthRoutes(ctx));
  app.route('/auth/v1', families.auth.app);
  app.route('/rest/v1', families.rest.app);
  app.route('/storage/v1', families.storage.app);
  app.route('/functions/v1', families.functions.app);
  app.notFound((c) => c.json({ message: 'no route matches this request' }, 404));
  app.onError((error, c) => {
    ctx.log.error('unhandled error', { id: c.get('requestId'), error: error.message, stack: error.stack });
    return c.json({ message: 'internal server error' }, 500);
  });
  return app;
}
