// E-mail links: GET /verify (the link itself) redirects 303 to the app with the session in the URL fragment,
// as auth-js expects, or in a PKCE flow with `?code=` for exchangeCodeForSession; POST /verify {type, token_hash} or {type, token, email} answers with the session.
import { Hono } from 'hono';
import { AuthError } from '@auction-ops/auth-core';
import type { AppEnv } from '../../context.js';
import { enforceLimit, jsonBody, queryString, requestMeta } from './auth-http.js';
import type { AuthDeps } from './deps.js';

export function verifyRoutes({ service, limiter, limits }: AuthDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get('/', async (c) => {
    await enforceLimit(c, limiter, 'other', c.get('clientIp'), limits.other);
    const target = new URL(service.redirectTarget(queryString(c, 'redirect_to')));
    target.hash = '';
    let fragment: URLSearchParams;
    c.header('Cache-Control', 'no-store');
    try {
      const session = await service.verifyLink(c.req.query('type') ?? '', c.req.query('token'), requestMeta(c));
      if ('authCode' in session) {
        target.searchParams.set('code', session.authCode);
        return c.redirect(target.href, 303);
      }
      fragment = new URLSearchParams({
        access_token: session.access_token,
        expires_at: String(session.expires_at),
        expires_in: String(session.expires_in),
        refresh_token: session.refresh_token,
        token_type: 'bearer',
        type: session.type,
      });
    } catch (error) {
      if (!(error instanceof AuthError)) throw error;
      fragment = new URLSearchParams({
        error: 'access_denied',
        error_code: error.code,
        error_description: error.message,
      });
    }
    return c.redirect(`${target.href}#${fragment}`, 303);
  });

  app.post('/', async (c) => {
    await enforceLimit(c, limiter, 'other', c.get('clientIp'), limits.other);
    const body = await jsonBody(c);
    const token = body.token_hash ?? body.token;
    // A six-digit code is counted against the address it names, so guessing one is slow from any number of IPs.
    if (!body.token_hash && typeof body.email === 'string' && body.email) {
      await enforceLimit(c, limiter, 'otpVerify', body.email.trim().toLowerCase(), limits.otpVerify);
    }
    const session = await service.verify(
      typeof body.type === 'string' ? body.type : '',
      token,
      requestMeta(c),
      body.token_hash ? undefined : body.email,
    );
    const { type: _type, ...response } = session;
    return c.json(response);
  });

  return app;
}
