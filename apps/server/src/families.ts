// Builds each path family's Hono app from the server context.
import { createRestEngine } from '@auction-ops/rest-engine';
import type { Mounted, ServerContext } from './context.js';
import type { Families } from './app.js';
import { authRoutes } from './routes/auth.js';
import { restRoutes } from './routes/rest.js';
import { storageRoutes } from './routes/storage.js';
import { functionRoutes } from './routes/functions.js';

async function restFamily(ctx: ServerContext): Promise<Mounted> {
  const engine = await createRestEngine({
    sql: ctx.sql,
    schemas: ['public'],
    maxRows: ctx.config.REST_MAX_ROWS,
    statementTimeoutMs: ctx.config.DB_STATEMENT_TIMEOUT_MS,
    poolTimeoutMs: ctx.config.DB_POOL_TIMEOUT_MS,
  });
  return {
    app: restRoutes(engine, { maxBodyBytes: ctx.config.REST_MAX_BODY_BYTES }),
    close: () => engine.close(),
  };
}

export async function createFamilies(ctx: ServerContext): Promise<Families> {
  const [auth, rest, storage] = await Promise.all([authRoutes(ctx), restFamily(ctx), storageRoutes(ctx)]);
  return { auth, rest, storage, functions: functionRoutes(ctx) };
}
