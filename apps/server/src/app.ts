// The HTTP surface: gateway middleware, then one Hono app per path family. Errors are rendered by each family.
import { Hono } from 'hono';
import type { AppEnv, Mounted, ServerContext } from './context.js';
import { requestLog } from './middleware/request-log.js';
import { corsMiddleware } from './middleware/cors.js';
import { apiKeyGate } from './middleware/gateway.js';
import { clientIp, parseCidrs } from './middleware/client-ip.js';
import { healthRoutes } from './routes/health.js';

export interface Families {
  auth: Mounted;
  rest: Mounted;
  storage: Mounted;
}

export function createApp(ctx: ServerContext, families: Families): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use('*', requestLog(ctx.log));
  app.use('*', corsMiddleware);
  app.use('*', clientIp(parseCidrs(ctx.config.TRUSTED_PROXY_CIDRS), ctx.config.TRUSTED_PROXY_CIDRS.trim() !== ''));
  app.use('*', apiKeyGate(ctx.verifier));
  app.route('/health', healthRoutes(ctx));
  app.route('/auth/v1', families.auth.app);
  app.route('/rest/v1', families.rest.app);
  app.route('/storage/v1', families.storage.app);
  app.notFound((c) => c.json({ message: 'no route matches this request' }, 404));
  app.onError((error, c) => {
    ctx.log.error('unhandled error', { id: c.get('requestId'), error: error.message, stack: error.stack });
    return c.json({ message: 'internal server error' }, 500);
  });
  return app;
}
