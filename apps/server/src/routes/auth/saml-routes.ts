// SAML 2.0 SSO (AUTH_SAML_ENABLED): POST /sso (signInWithSSO) answers the identity provider's URL; GET
// /sso/saml/metadata is our SP metadata; POST /sso/saml/acs takes the provider's answer (HTTP-POST binding, no
// apikey) and sends the browser on; /admin/sso/providers registers identity providers (service role only).
import { Hono } from 'hono';
import { authErrors, pkceChallenge } from '@auction-ops/auth-core';
import type { AppEnv } from '../../context.js';
import type { SamlServices } from '../../services/saml-services.js';
import { adminOnly } from './admin-routes.js';
import { type AuthContext, enforceLimit, jsonBody, requestMeta } from './auth-http.js';
import type { AuthDeps } from './deps.js';
import { redirectUrl } from './oauth-routes.js';

/** The posted form's text fields; anything but a form is refused. */
async function formFields(c: AuthContext): Promise<Record<string, string>> {
  const type = c.req.header('content-type') ?? '';
  if (!type.startsWith('application/x-www-form-urlencoded') && !type.startsWith('multipart/form-data'))
    throw authErrors.validation('the SAML response must be posted as a form (HTTP-POST binding)');
  const form = await c.req.parseBody();
  return Object.fromEntries(Object.entries(form).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

export function samlRoutes(deps: AuthDeps, { saml, ssoProviders }: SamlServices): Hono<AppEnv> {
  const { limiter, limits } = deps;
  const app = new Hono<AppEnv>();
  const signInLimit = (c: AuthContext) => enforceLimit(c, limiter, 'signIn', c.get('clientIp'), limits.signIn);

  app.post('/sso', async (c) => {
    await signInLimit(c);
    const body = await jsonBody(c);
    const url = await saml.start({
      providerId: body.provider_id,
      domain: body.domain,
      redirectTo: typeof body.redirect_to === 'string' && body.redirect_to ? body.redirect_to : undefined,
      pkce: pkceChallenge(body.code_challenge, body.code_challenge_method),
    });
    if (body.skip_http_redirect === true) return c.json({ url });
    return c.redirect(url, 303);
  });

  app.get('/sso/saml/metadata', async (c) => {
    await enforceLimit(c, limiter, 'other', c.get('clientIp'), limits.other);
    c.header('Content-Type', 'application/xml');
    c.header('Cache-Control', 'public, max-age=600');
    if (c.req.query('download') === 'true') c.header('Content-Disposition', 'attachment; filename="metadata.xml"');
    return c.body(saml.metadata());
  });

  app.post('/sso/saml/acs', async (c) => {
    await signInLimit(c);
    const { redirectTo, outcome } = await saml.acs(await formFields(c), requestMeta(c));
    c.header('Cache-Control', 'no-store');
    return c.redirect(redirectUrl(redirectTo, outcome), 302);
  });

  const admin = new Hono<AppEnv>();
  admin.use('*', adminOnly(deps));
  admin.get('/', async (c) => c.json(await ssoProviders.list()));
  admin.post('/', async (c) => c.json(await ssoProviders.create(await jsonBody(c)), 201));
  admin.get('/:id', async (c) => c.json(await ssoProviders.get(c.req.param('id'))));
  admin.put('/:id', async (c) => c.json(await ssoProviders.update(c.req.param('id'), await jsonBody(c))));
  admin.delete('/:id', async (c) => c.json(await ssoProviders.remove(c.req.param('id'))));
  app.route('/admin/sso/providers', admin);
  return app;
}
