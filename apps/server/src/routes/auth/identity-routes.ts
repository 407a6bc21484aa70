// The signed-in user's identities: GET /user/identities/authorize (linkIdentity: the provider URL of a flow that
// attaches the identity to this user) and DELETE /user/identities/{id} (unlinkIdentity). getUserIdentities reads
// GET /user's identities.
import { Hono } from 'hono';
import { authErrors, pkceChallenge, subject, unlinkIdentity } from '@auction-ops/auth-core';
import type { AppEnv } from '../../context.js';
import { callerClaims, queryString } from './auth-http.js';
import type { AuthDeps } from './deps.js';

export function identityRoutes({ ctx, service, oauth }: AuthDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
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
    await unlinkIdentity(ctx.ownerSql, subject(claims).userId, id);
    return c.json({});
  });
  return app;
}
