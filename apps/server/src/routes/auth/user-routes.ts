// The signed-in user: GET /user and PUT /user (metadata, password, e-mail).
import { Hono } from 'hono';
import { subject } from '@auction-ops/auth-core';
import type { AppEnv } from '../../context.js';
import { callerClaims, enforceLimit, jsonBody, queryString } from './auth-http.js';
import type { AuthDeps } from './deps.js';

export function userRoutes({ service, limiter, limits, reauth }: AuthDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use('*', async (c, next) => {
    await enforceLimit(c, limiter, 'other', c.get('clientIp'), limits.other);
    await next();
  });
  app.get('/', async (c) => c.json(await service.getUser(callerClaims(c))));
  app.put('/', async (c) => {
    const claims = callerClaims(c);
    const body = await jsonBody(c);
    if (body.password !== undefined) {
      const { userId, sessionId } = subject(claims);
      await reauth.checkPasswordChange(userId, sessionId, body.nonce);
    }
    return c.json(
      await service.updateUser(
        claims,
        { email: body.email, password: body.password, data: body.data },
        queryString(c, 'redirect_to'),
      ),
    );
  });
  return app;
}
