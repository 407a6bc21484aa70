// TOTP multi-factor: POST /factors (enroll), POST /factors/:id/challenge, POST /factors/:id/verify,
// DELETE /factors/:id (unenroll). Verification is counted per user, so a stolen password cannot guess codes.
import { Hono } from 'hono';
import type { AppEnv } from '../../context.js';
import { callerClaims, enforceLimit, jsonBody, perIpLimit } from './auth-http.js';
import type { AuthDeps } from './deps.js';

export function factorRoutes({ mfa, limiter, limits }: AuthDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use('*', perIpLimit(limiter, limits));
  app.post('/', async (c) => {
    const claims = callerClaims(c);
    return c.json(await mfa.enroll(claims, await jsonBody(c)));
  });
  app.post('/:id/challenge', async (c) => {
    const claims = callerClaims(c);
    return c.json(await mfa.challenge(claims, c.req.param('id'), c.get('clientIp')));
  });
  app.post('/:id/verify', async (c) => {
    const claims = callerClaims(c);
    await enforceLimit(c, limiter, 'mfaVerify', String(claims.sub), limits.mfaVerify);
    return c.json(await mfa.verify(claims, c.req.param('id'), await jsonBody(c), c.get('clientIp')));
  });
  app.delete('/:id', async (c) => c.json(await mfa.unenroll(callerClaims(c), c.req.param('id'))));
  return app;
}
