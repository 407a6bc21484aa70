// The OAuth 2.1 authorization server's routes (AUTH_OAUTH_SERVER_ENABLED), at GoTrue's paths: the client registry
// under /admin/oauth/clients (service role), /oauth/authorize and the consent calls auth-js makes
// (supabase.auth.oauth.*), /oauth/token for the clients, /user/oauth/grants, and the server's metadata.
import { Hono } from 'hono';
import {
  authErrors,
  type ClientCredentials,
  OAUTH_SERVER_SCOPES,
  type OAuthServer,
  subject,
  type TokenParams,
} from '@auction-ops/auth-core';
import type { AppEnv } from '../../context.js';
import { parseJsonObject, readBoundedText } from '../../http/read-body.js';
import {
  type AuthContext,
  callerClaims,
  enforceLimit,
  jsonBody,
  MAX_AUTH_BODY_BYTES,
  requestMeta,
} from './auth-http.js';
import { adminOnly, pageParameter } from './admin-routes.js';
import type { AuthDeps } from './deps.js';

export function oauthServerRoutes(deps: AuthDeps, server: OAuthServer): Hono<AppEnv> {
  const { limiter, limits, ctx } = deps;
  const { clients, authorizations, tokens } = server;
  const perIp = async (c: AuthContext) => enforceLimit(c, limiter, 'other', c.get('clientIp'), limits.other);
  const userId = (c: AuthContext) => subject(callerClaims(c)).userId;
  const app = new Hono<AppEnv>();

  const admin = new Hono<AppEnv>();
  admin.use('*', adminOnly(deps));
  admin.post('/', async (c) => c.json(await clients.create(await jsonBody(c)), 201));
  admin.get('/', async (c) => {
    const page = Math.max(pageParameter(c.req.query('page'), 1), 1);
    const perPage = Math.min(Math.max(pageParameter(c.req.query('per_page'), 50), 1), 1000);
    const { clients: list, total } = await clients.list(page, perPage);
    const last = Math.max(1, Math.ceil(total / perPage));
    // auth-js reads the page number right after "page=", as for /admin/users.
    const links = [`</admin/oauth/clients?page=${last}&per_page=${perPage}>; rel="last"`];
    if (page < last) links.unshift(`</admin/oauth/clients?page=${page + 1}&per_page=${perPage}>; rel="next"`);
    c.header('X-Total-Count', String(total));
    c.header('Link', links.join(', '));
    return c.json({ clients: list, aud: 'authenticated' });
  });
  admin.get('/:id', async (c) => c.json(await clients.get(c.req.param('id'))));
  admin.put('/:id', async (c) => c.json(await clients.update(c.req.param('id'), await jsonBody(c))));
  admin.delete('/:id', async (c) => {
    await clients.remove(c.req.param('id'));
    return c.body(null, 204);
  });
  admin.post('/:id/regenerate_secret', async (c) => c.json(await clients.regenerateSecret(c.req.param('id'))));
  app.route('/admin/oauth/clients', admin);

  app.get('/oauth/authorize', async (c) => {
    await perIp(c);
    return c.redirect(await authorizations.authorize(c.req.query()), 302);
  });
  app.get('/oauth/authorizations/:id', async (c) => {
    await perIp(c);
    authorizations.checkOrigin(c.req.header('origin'));
    return c.json(await authorizations.details(c.req.param('id'), userId(c)));
  });
  app.post('/oauth/authorizations/:id/consent', async (c) => {
    await perIp(c);
    authorizations.checkOrigin(c.req.header('origin'));
    const user = userId(c);
    const body = await jsonBody(c);
    return c.json(await authorizations.consent(c.req.param('id'), user, body.action));
  });
  app.post('/oauth/token', async (c) => {
    await perIp(c);
    const params = await tokenParams(c);
    const client = await clients.authenticate(clientCredentials(c, params));
    c.header('Cache-Control', 'no-store');
    return c.json(await tokens.grant(client, params, requestMeta(c)));
  });

  app.get('/user/oauth/grants', async (c) => {
    await perIp(c);
    return c.json(await authorizations.listGrants(userId(c)));
  });
  app.delete('/user/oauth/grants', async (c) => {
    await perIp(c);
    await authorizations.revokeGrant(userId(c), c.req.query('client_id'));
    return c.body(null, 204);
  });

  // RFC 8414 metadata, so a client library can find the endpoints from the issuer.
  app.get('/.well-known/oauth-authorization-server', async (c) => {
    await perIp(c);
    const issuer = `${ctx.config.PUBLIC_URL}/auth/v1`;
    return c.json({
      issuer,
      authorization_endpoint: `${issuer}/oauth/authorize`,
      token_endpoint: `${issuer}/oauth/token`,
      jwks_uri: `${issuer}/.well-known/jwks.json`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256', 'plain'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
      scopes_supported: OAUTH_SERVER_SCOPES,
    });
  });
  return app;
}

/** The token request's parameters: a form body (RFC 6749) or JSON, as GoTrue takes both. */
async function tokenParams(c: AuthContext): Promise<TokenParams & { client_id?: string; client_secret?: string }> {
  const text = await readBoundedText(c.req.raw, MAX_AUTH_BODY_BYTES);
  if (text === null) throw authErrors.tooLarge();
  let fields: Record<string, unknown>;
  if ((c.req.header('content-type') ?? '').includes('application/json')) {
    const parsed = text.trim() ? parseJsonObject(text) : {};
    if (!parsed) throw authErrors.badJson();
    fields = parsed;
  } else {
    fields = Object.fromEntries(new URLSearchParams(text));
  }
  const field = (name: string) =>
    typeof fields[name] === 'string' && fields[name] ? (fields[name] as string) : undefined;
  return {
    grant_type: field('grant_type'),
    code: field('code'),
    redirect_uri: field('redirect_uri'),
    code_verifier: field('code_verifier'),
    refresh_token: field('refresh_token'),
    client_id: field('client_id'),
    client_secret: field('client_secret'),
  };
}

/** How the client authenticates: HTTP Basic (client_secret_basic), a secret in the body (_post), or none. */
function clientCredentials(c: AuthContext, params: { client_id?: string; client_secret?: string }): ClientCredentials {
  const header = c.req.header('authorization');
  if (header?.startsWith('Basic ')) {
    const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw authErrors.invalidClientCredentials('invalid basic auth format');
    return { clientId: decoded.slice(0, colon), secret: decoded.slice(colon + 1), method: 'client_secret_basic' };
  }
  return {
    clientId: params.client_id,
    secret: params.client_secret,
    method: params.client_secret ? 'client_secret_post' : 'none',
  };
}
