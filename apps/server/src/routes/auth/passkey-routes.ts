// Passkeys (GoTrue's /passkeys): registration and sign-in ceremonies, listing, renaming and removal; and the
// service role's GET/DELETE /admin/users/{id}/passkeys. Off (AUTH_PASSKEYS_ENABLED=false) every /passkeys route
// answers GoTrue's 404 passkey_disabled; the admin routes stay, as in GoTrue.
import { Hono } from 'hono';
import { webauthnErrors } from '@auction-ops/auth-core';
import type { AppEnv } from '../../context.js';
import { adminOnly } from './admin-routes.js';
import { callerClaims, enforceLimit, jsonBody, requestMeta } from './auth-http.js';
import type { AuthDeps } from './deps.js';

export function passkeyRoutes({ passkeys, limiter, limits }: AuthDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const perIp = (c: Parameters<typeof enforceLimit>[0], bucket: 'other' | 'signIn' = 'other') =>
    enforceLimit(c, limiter, bucket, c.get('clientIp'), bucket === 'signIn' ? limits.signIn : limits.other);
  app.use('*', async (c, next) => {
    if (!passkeys.enabled) {
      await perIp(c);
      throw webauthnErrors.passkeysDisabled();
    }
    await next();
  });

  app.post('/authentication/options', async (c) => {
    await perIp(c);
    return c.json(await passkeys.authenticationOptions());
  });
  app.post('/authentication/verify', async (c) => {
    // A sign-in: counted with password sign-ins per address.
    await perIp(c, 'signIn');
    return c.json(await passkeys.verifyAuthentication(await jsonBody(c), requestMeta(c)));
  });
  app.post('/registration/options', async (c) => {
    await perIp(c);
    return c.json(await passkeys.registrationOptions(callerClaims(c)));
  });
  app.post('/registration/verify', async (c) => {
    await perIp(c);
    const claims = callerClaims(c);
    return c.json(await passkeys.verifyRegistration(claims, await jsonBody(c)));
  });
  app.get('/', async (c) => {
    await perIp(c);
    return c.json(await passkeys.list(callerClaims(c)));
  });
  app.patch('/:id', async (c) => {
    await perIp(c);
    const claims = callerClaims(c);
    return c.json(await passkeys.rename(claims, c.req.param('id'), await jsonBody(c)));
  });
  app.delete('/:id', async (c) => {
    await perIp(c);
    await passkeys.remove(callerClaims(c), c.req.param('id'));
    return c.body(null, 204);
  });
  return app;
}

/** Mounted at /admin/users, before the rest of the admin API. */
export function adminPasskeyRoutes(deps: AuthDeps): Hono<AppEnv> {
  const { passkeys } = deps;
  const app = new Hono<AppEnv>();
  app.use('/:userId/passkeys', adminOnly(deps));
  app.use('/:userId/passkeys/*', adminOnly(deps));
  app.get('/:userId/passkeys', async (c) => c.json(await passkeys.adminList(c.req.param('userId'))));
  app.delete('/:userId/passkeys/:id', async (c) => {
    await passkeys.adminRemove(c.req.param('userId'), c.req.param('id'));
    return c.body(null, 204);
  });
  return app;
}
