// The signed-in user's identities: GET /user/identities/authorize (linkIdentity: the provider URL of a flow that
// attaches the identity to this user) and DELETE /user/identities/{id} (unlinkIdentity). getUserIdentities reads
// GET /user's identities. Both are GoTrue's manual linking: off (AUTH_MANUAL_LINKING_ENABLED=false, its default)
// they answer 404 manual_linking_disabled to a signed-in caller.
import { Hono } from 'hono';
import { authErrors, pkceChallenge, subject, unlinkIdentity } from '@auction-ops/auth-core';
import type { AppEnv } from '../../context.js';
import { callerClaims, queryString } from './auth-http.js';
import type { AuthDeps } from './deps.js';

export function identityRoutes({ ctx, service, oauth }: AuthDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use('*', async (c, next) => {
    callerClaims(c); // a signed-in caller first, as GoTrue's authentication runs before its linking check
    if (!ctx.config.AUTH_MANUAL_LINKING_ENABLED) throw authErrors.manualLinkingDisabled();
    await next();
  });
  app.get('/authorize', async (c) => {
    const claims = callerClaims(c);
    await service.getUser(claims); // a live session of an existing user
    const url = await oauth.authorize({
      provider: c.req.query('provider'),
      redirectTo: queryString(c, 'redirect_to'),
      scopes: queryString(c, 'scopes'),
      pkce: pkceChallenge(c.req.query('code_challenge'), c.req.query('code_challenge_method')),
      linkUserId: subject(claims).userId,
    });
    if (c.req.query('skip_http_redirect') === 'true') return c.json({ url });
    return c.redirect(url, 302);
  });
  app.delete('/:id', async (c) => {
    const claims = callerClaims(c);
    await service.getUser(claims);
    const id = c.req.param('id');
    if (!/^[0-9a-f-]{36}$/i.test(id)) throw authErrors.validation('identity_id must be an UUID');
    await unlinkIdentity(ctx.ownerRequestSql, subject(claims).userId, id);
    return c.json({});
  });
  return app;
}
