// GET /health: 200 once the database answers `select 1` within 2 s (the server only listens after migrating), 503
// otherwise. With read replicas configured it also counts those in rotation (reads fall back to the primary, so none
// is still 200).
import { Hono } from 'hono';
import type { AppEnv, ServerContext } from '../context.js';
import { version } from '../version.js';

export function healthRoutes(ctx: ServerContext): Hono<AppEnv> {
  return new Hono<AppEnv>().get('/', async (c) => {
    // The availability check's own connection: its answer is also what the 503 gate goes by from now on.
    if (!(await ctx.database.check())) return c.json({ status: 'error', database: 'down', version }, 503);
    if (ctx.replicas.size === 0) return c.json({ status: 'ok', database: 'up', version });
    const healthy = ctx.replicas.status().filter((r) => r.healthy).length;
    return c.json({ status: 'ok', database: 'up', read_replicas: { total: ctx.replicas.size, healthy }, version });
  });
}
