// GET /reauthenticate: mails the signed-in user a nonce for a password change (reauthentication.ts in auth-core).
import { Hono } from 'hono';
import { subject } from '@auction-ops/auth-core';
import type { AppEnv } from '../../context.js';
import { callerClaims, enforceLimit } from './auth-http.js';
import type { AuthDeps } from './deps.js';

export function reauthenticateRoutes({ service, reauth, limiter, limits }: AuthDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/', async (c) => {
    const claims = callerClaims(c);
    // Counted per user like recovery mails: each call sends one.
    await enforceLimit(c, limiter, 'recover', subject(claims).userId, limits.recover);
    await service.getUser(claims); // a live session of an existing user
    await reauth.send(subject(claims).userId);
    return c.json({});
  });
  return app;
}
