// The admin API for the service role: users (paged listing, newest first, with X-Total-Count and Link),
// invitations, factors and generate_link.
import { Hono, type MiddlewareHandler } from 'hono';
import { authErrors } from '@auction-ops/auth-core';
import type { AppEnv } from '../../context.js';
import { enforceLimit, jsonBody } from './auth-http.js';
import type { AuthDeps } from './deps.js';

/** The service role only, after the per-IP limit. */
export function adminOnly({ limiter, limits }: AuthDeps): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await enforceLimit(c, limiter, 'other', c.get('clientIp'), limits.other);
    const failure = c.get('authError');
    if (failure) throw authErrors.invalidToken();
    if (c.get('claims')?.role !== 'service_role') throw authErrors.notAdmin();
    await next();
  };
}

/** POST /invite (GoTrue keeps it beside, not under, /admin): an invitation mail, for the service role. */
export function inviteRoutes(deps: AuthDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use('*', adminOnly(deps));
  app.post('/', async (c) => c.json(await deps.admin.invite(await jsonBody(c), c.req.query('redirect_to'))));
  return app;
}

export function adminRoutes(deps: AuthDeps): Hono<AppEnv> {
  const { admin } = deps;
  const app = new Hono<AppEnv>();
  app.use('*', adminOnly(deps));

  app.get('/users', async (c) => {
    const page = Math.max(pageParameter(c.req.query('page'), 1), 1);
    const perPage = Math.min(Math.max(pageParameter(c.req.query('per_page'), 50), 1), 1000);
    const { users, total } = await admin.list(page, perPage);
    const last = Math.max(1, Math.ceil(total / perPage));
    // auth-js reads the page number right after "page=", so it comes first in each link.
    const links = [`</admin/users?page=${last}&per_page=${perPage}>; rel="last"`];
    if (page < last) links.unshift(`</admin/users?page=${page + 1}&per_page=${perPage}>; rel="next"`);
    c.header('X-Total-Count', String(total));
    c.header('Link', links.join(', '));
    return c.json({ users, aud: 'authenticated' });
  });
  app.post('/users', async (c) => c.json(await admin.create(await jsonBody(c))));
  app.get('/users/:id', async (c) => c.json(await admin.get(c.req.param('id'))));
  app.put('/users/:id', async (c) => c.json(await admin.update(c.req.param('id'), await jsonBody(c))));
  app.delete('/users/:id', async (c) => {
    const body = await jsonBody(c);
    const user = await admin.get(c.req.param('id'));
    await admin.remove(c.req.param('id'), body.should_soft_delete === true);
    return c.json(user);
  });
  app.get('/users/:id/factors', async (c) => c.json(await admin.listFactors(c.req.param('id'))));
  app.delete('/users/:id/factors/:factorId', async (c) =>
    c.json(await admin.deleteFactor(c.req.param('id'), c.req.param('factorId'))),
  );
  app.post('/generate_link', async (c) => {
    const body = await jsonBody(c);
    return c.json(await admin.generateLink({ ...body, redirect_to: body.redirect_to ?? c.req.query('redirect_to') }));
  });
  return app;
}

/** `page` and `per_page` as GoTrue parses them (unsigned integers), refused in its words otherwise. */
function pageParameter(value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  if (!/^\d{1,15}$/.test(value)) {
    throw authErrors.validation(`Bad Pagination Parameters: strconv.ParseUint: parsing "${value}": invalid syntax`);
  }
  return Number(value);
}
