// Each path family's Hono app over the services of the composition root.
import type { Families } from './app.js';
import type { ServerContext } from './context.js';
import { authRoutes } from './routes/auth.js';
import { consoleFamily } from './routes/console.js';
import { functionRoutes } from './routes/functions.js';
import { realtimeRoutes } from './routes/realtime.js';
import { restRoutes } from './routes/rest.js';
import { storageRoutes } from './routes/storage.js';
import type { Services } from './services/index.js';

export function createFamilies(ctx: ServerContext, services: Services): Families {
  return {
    auth: authRoutes(ctx, services.auth),
    rest: restRoutes(services.rest, { maxBodyBytes: ctx.config.REST_MAX_BODY_BYTES }),
    storage: storageRoutes(ctx, services.storage),
    functions: functionRoutes(services.functions.dispatcher),
    realtime: realtimeRoutes(services.realtime, ctx.config.REALTIME_MAX_PAYLOAD_BYTES),
    console: consoleFamily(ctx, () => services.realtime.stats(), services.storage),
  };
}
