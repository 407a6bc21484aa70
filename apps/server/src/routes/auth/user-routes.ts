// The signed-in user: GET /user and PUT /user (metadata, password, e-mail).
import { Hono } from 'hono';
import { pkceChallenge, subject } from '@auction-ops/auth-core';
import type { AppEnv } from '../../context.js';
import { callerClaims, enforceLimit, jsonBody, queryString } from './auth-http.js';
import type { AuthDeps } from './deps.js';
import { identityRoutes } from './identity-routes.js';

export function userRoutes(deps: AuthDeps): Hono<AppEnv> {
  const { service, limiter, limits, reauth } = deps;
  const app = new Hono<AppEnv>();
  app.use('*', async (c, next) => {
    await enforceLimit(c, limiter, 'other', c.get('clientIp'), limits.other);
    await next();
  });
  app.route('/identities', identityRoutes(deps));
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
        pkceChallenge(body.code_challenge, body.code_challenge_method),
      ),
    );
  });
  return app;
}
