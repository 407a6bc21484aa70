// GoTrue features this server does not offer, answered with GoTrue's own "disabled" errors so that auth-js reports
// them as a GoTrue with the feature switched off would: web3 sign-in and, while AUTH_SAML_ENABLED or
// AUTH_OAUTH_SERVER_ENABLED is off, SAML 2.0 SSO or the OAuth 2.1 server.
import { Hono } from 'hono';
import { AuthError } from '@auction-ops/auth-core';
import type { AppEnv } from '../../context.js';
import { enforceLimit } from './auth-http.js';
import type { AuthDeps } from './deps.js';

const samlDisabled = () => new AuthError(404, 'saml_provider_disabled', 'SAML 2.0 is disabled');
const oauthServerDisabled = () => new AuthError(404, 'feature_disabled', 'OAuth server is disabled');
const web3Disabled = () => new AuthError(422, 'web3_provider_disabled', 'Web3 provider is disabled');

export function disabledFeatureRoutes({ limiter, limits, oauthServer, sso }: AuthDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const refuse = (error: () => AuthError) => async (c: Parameters<typeof enforceLimit>[0]) => {
    await enforceLimit(c, limiter, 'other', c.get('clientIp'), limits.other);
    throw error();
  };
  if (!sso) for (const path of ['/sso', '/sso/*', '/admin/sso/*']) app.all(path, refuse(samlDisabled));
  const oauthPaths = ['/oauth/*', '/admin/oauth/*', '/user/oauth/*', '/.well-known/oauth-authorization-server'];
  if (!oauthServer) for (const path of oauthPaths) app.all(path, refuse(oauthServerDisabled));
  app.post('/token', async (c, next) => {
    if (c.req.query('grant_type') === 'web3') await refuse(web3Disabled)(c);
    await next();
  });
  return app;
}
