// The admin API for the service role: users (paged listing with X-Total-Count and Link) and generate_link.
import { Hono } from 'hono';
import { authErrors } from '@auction-ops/auth-core';
import type { AppEnv } from '../../context.js';
import { enforceLimit, jsonBody } from './auth-http.js';
import type { AuthDeps } from './deps.js';

export function adminRoutes({ admin, limiter, limits }: AuthDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use('*', async (c, next) => {
    await enforceLimit(c, limiter, 'other', c.get('clientIp'), limits.other);
    const failure = c.get('authError');
    if (failure) throw authErrors.invalidToken();
    if (c.get('claims')?.role !== 'service_role') throw authErrors.notAdmin();
    await next();
  });

  app.get('/users', async (c) => {
    const page = positive(c.req.query('page'), 1);
    const perPage = Math.min(positive(c.req.query('per_page'), 50), 1000);
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
  app.post('/generate_link', async (c) => {
    const body = await jsonBody(c);
    return c.json(await admin.generateLink({ ...body, redirect_to: body.redirect_to ?? c.req.query('redirect_to') }));
  });
  return app;
}

function positive(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}
