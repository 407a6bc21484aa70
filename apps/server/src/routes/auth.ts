// /auth/v1 — placeholder until the auth routes land: answers 404 in the family's error shape.
import { Hono } from 'hono';
import type { AppEnv, Mounted, ServerContext } from '../context.js';

export async function authRoutes(_ctx: ServerContext): Promise<Mounted> {
  return { app: new Hono<AppEnv>().all('*', (c) => c.json({ message: 'not found' }, 404)) };
}
