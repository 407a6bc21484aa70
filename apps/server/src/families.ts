// Builds each path family's Hono app from the server context.
import { Hono } from 'hono';
import type { AppEnv, ServerContext } from './context.js';
import type { Families } from './app.js';
import { authRoutes } from './routes/auth.js';
import { storageRoutes } from './routes/storage.js';

export async function createFamilies(ctx: ServerContext): Promise<Families> {
  const [auth, storage] = await Promise.all([authRoutes(ctx), storageRoutes(ctx)]);
  const rest = { app: new Hono<AppEnv>().all('*', (c) => c.json({ code: 'PGRST125', details: null, hint: null, message: 'not available yet' }, 404)) };
  return { auth, rest, storage };
}
