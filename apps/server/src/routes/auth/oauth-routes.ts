// OAuth / OpenID sign-in: GET /authorize (signInWithOAuth navigates here, no apikey) sends the browser to the
// provider; GET or POST /callback (the provider's redirect; some providers post a form) sends it back to the app
// with the session in the fragment, `?code=` in a PKCE flow, or GoTrue's error parameters.
import { Hono } from 'hono';
import { type CallbackOutcome, pkceChallenge } from '@auction-ops/auth-core';
import type { AppEnv } from '../../context.js';
import { type AuthContext, perIpLimit, queryString, requestMeta } from './auth-http.js';
import type { AuthDeps } from './deps.js';

/** GoTrue's `error` for an AuthError (its oauthErrorMap by status). */
function oauthError(status: number, code: string): string {
  if (['signup_disabled', 'user_banned', 'provider_email_needs_verification'].includes(code)) return 'access_denied';
  if (status === 400 || status === 422) return 'invalid_request';
  if (status === 401 || status === 403) return 'unauthorized_client';
  return 'server_error';
}

/** The app URL with the session in the fragment, `?code=` (PKCE) or GoTrue's error parameters (SAML's ACS too). */
export function redirectUrl(redirectTo: string, outcome: CallbackOutcome): string {
  const target = new URL(redirectTo);
  if ('authCode' in outcome) {
    target.searchParams.set('code', outcome.authCode);
    return target.href;
  }
  const fragment = new URLSearchParams();
  if ('session' in outcome) {
    const { session } = outcome;
    fragment.set('access_token', session.access_token);
    fragment.set('expires_at', String(session.expires_at));
    fragment.set('expires_in', String(session.expires_in));
    fragment.set('refresh_token', session.refresh_token);
    fragment.set('token_type', 'bearer');
  } else {
    const { error } = outcome;
    const name = outcome.oauthError ?? oauthError(error.status, error.code);
    // In the query too, as GoTrue does, so a PKCE client (which reads the query) sees the failure.
    for (const params of [target.searchParams, fragment]) {
      params.set('error', name);
      params.set('error_code', error.code);
      params.set('error_description', error.message);
    }
  }
  target.hash = fragment.toString();
  return target.href;
}

/** The provider's answer: the query of a GET, the form of a POST (response_mode=form_post). */
async function callbackParams(c: AuthContext): Promise<URLSearchParams> {
  if (c.req.method !== 'POST') return new URL(c.req.url).searchParams;
  const form = await c.req.parseBody();
  return new URLSearchParams(Object.entries(form).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

export function oauthRoutes({ oauth, limiter, limits }: AuthDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use('/authorize', perIpLimit(limiter, limits));
  app.use('/callback', perIpLimit(limiter, limits));

  app.get('/authorize', async (c) => {
    const url = await oauth.authorize({
      provider: c.req.query('provider'),
      redirectTo: queryString(c, 'redirect_to'),
      scopes: queryString(c, 'scopes'),
      pkce: pkceChallenge(c.req.query('code_challenge'), c.req.query('code_challenge_method')),
    });
    if (c.req.query('skip_http_redirect') === 'true') return c.json({ url });
    return c.redirect(url, 302);
  });

  const callback = async (c: AuthContext) => {
    const { redirectTo, outcome } = await oauth.callback(await callbackParams(c), requestMeta(c));
    c.header('Cache-Control', 'no-store');
    return c.redirect(redirectUrl(redirectTo, outcome), 302);
  };
  app.get('/callback', callback);
  app.post('/callback', callback);
  return app;
}
