// WebAuthn MFA factors on GoTrue's /factors routes, in front of the TOTP ones (factor-routes.ts): an enrollment
// with factor_type 'webauthn' and the challenge and verification of a WebAuthn factor are answered here, anything
// else falls through. Unenrolling is the same for every type and stays there.
import { Hono } from 'hono';
import type { AppEnv } from '../../context.js';
import { type AuthContext, callerClaims, enforceLimit, jsonBody } from './auth-http.js';
import type { AuthDeps } from './deps.js';

/** The body's factor_type; jsonBody keeps the body it read, so the routes after this one can still read it. */
async function factorTypeOf(c: AuthContext): Promise<unknown> {
  return (await jsonBody(c)).factor_type;
}

export function webauthnFactorRoutes({ webauthnFactors, limiter, limits }: AuthDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const perIp = (c: AuthContext) => enforceLimit(c, limiter, 'other', c.get('clientIp'), limits.other);

  app.post('/', async (c, next) => {
    if ((await factorTypeOf(c)) !== 'webauthn') return next();
    await perIp(c);
    const claims = callerClaims(c);
    return c.json(await webauthnFactors.enroll(claims, await jsonBody(c)));
  });
  app.post('/:id/challenge', async (c, next) => {
    if (!(await webauthnFactors.isWebAuthnFactor(c.req.param('id')))) return next();
    await perIp(c);
    const claims = callerClaims(c);
    return c.json(await webauthnFactors.challenge(claims, c.req.param('id'), c.get('clientIp')));
  });
  app.post('/:id/verify', async (c, next) => {
    if (!(await webauthnFactors.isWebAuthnFactor(c.req.param('id')))) return next();
    await perIp(c);
    const claims = callerClaims(c);
    // Counted per user as TOTP verifications are.
    await enforceLimit(c, limiter, 'mfaVerify', String(claims.sub), limits.mfaVerify);
    return c.json(await webauthnFactors.verify(claims, c.req.param('id'), await jsonBody(c), c.get('clientIp')));
  });
  return app;
}
