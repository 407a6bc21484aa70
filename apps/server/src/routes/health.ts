// GET /health: 200 once the database answers (the server only listens after migrating), 503 otherwise. With read
// replicas configured it also counts those in rotation (reads fall back to the primary, so none is still 200) and
// gives each one's replay lag, in the order of DATABASE_READ_URLS (no host names: /health answers anyone).
import { Hono } from 'hono';
import type { AppEnv, ServerContext } from '../context.js';
import { version } from '../version.js';

export function healthRoutes(ctx: ServerContext): Hono<AppEnv> {
  return new Hono<AppEnv>().get('/', async (c) => {
    // The availability check's own connection: its answer is also what the 503 gate goes by from now on.
    if (!(await ctx.database.check())) return c.json({ status: 'error', database: 'down', version }, 503);
    if (ctx.replicas.size === 0) return c.json({ status: 'ok', database: 'up', version });
    const replicas = ctx.replicas.status();
    const read_replicas = {
      total: ctx.replicas.size,
      healthy: replicas.filter((r) => r.healthy).length,
      lag_ms: replicas.map((r) => r.lagMs),
    };
    return c.json({ status: 'ok', database: 'up', read_replicas, version });
  });
}
