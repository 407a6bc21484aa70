// WebAuthn MFA factors on GoTrue's /factors routes, in front of the TOTP ones (factor-routes.ts): an enrollment
// with factor_type 'webauthn' and the challenge and verification of a WebAuthn factor are answered here, anything
// else falls through. Unenrolling is the same for every type and stays there.
import { Hono } from 'hono';
import type { AppEnv } from '../../context.js';
import { parseJsonObject, readBoundedText } from '../../http/read-body.js';
import { type AuthContext, callerClaims, enforceLimit, jsonBody, MAX_AUTH_BODY_BYTES } from './auth-http.js';
import type { AuthDeps } from './deps.js';

/** The body's factor_type, read from a copy so the TOTP route can still read the body. */
async function factorTypeOf(c: AuthContext): Promise<unknown> {
  const text = await readBoundedText(c.req.raw.clone(), MAX_AUTH_BODY_BYTES);
  return text ? parseJsonObject(text)?.factor_type : undefined;
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
