// Sign-up, token grants (password, refresh_token, pkce, id_token), logout and password recovery.
import { Hono } from 'hono';
import { authErrors, oauthGrantError, pkceChallenge, validEmail } from '@auction-ops/auth-core';
import type { AppEnv } from '../../context.js';
import { type AuthContext, callerClaims, enforceLimit, jsonBody, queryString, requestMeta } from './auth-http.js';
import type { AuthDeps } from './deps.js';

/**
 * linkIdentity({provider, token}): the id_token grant with `link_identity` attaches the identity to the caller of
 * the Authorization token (GoTrue's rule), under manual linking as /user/identities is.
 */
async function idTokenLinkTarget(
  c: AuthContext,
  body: Record<string, unknown>,
  { ctx, service }: Pick<AuthDeps, 'ctx' | 'service'>,
): Promise<string | undefined> {
  if (body.link_identity !== true) return undefined;
  if (!c.req.header('authorization')) {
    throw oauthGrantError('invalid request', 'Linking requires a valid user access token in Authorization');
  }
  const claims = callerClaims(c);
  const user = await service.getUser(claims); // a live session of an existing user
  if (!ctx.config.AUTH_MANUAL_LINKING_ENABLED) throw authErrors.manualLinkingDisabled();
  return user.id;
}

export function sessionRoutes({ ctx, service, idToken, limiter, limits }: AuthDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.post('/signup', async (c) => {
    const body = await jsonBody(c);
    // auth-js's signInAnonymously posts no credentials at all (GoTrue's rule); it has its own per-IP limit.
    if (body.email === undefined && body.password === undefined && body.phone === undefined) {
      await enforceLimit(c, limiter, 'anonymous', c.get('clientIp'), limits.anonymous);
      const session = await service.signInAnonymously(body.data, requestMeta(c));
      return c.json({ ...session, ...session.user, user: session.user });
    }
    await enforceLimit(c, limiter, 'signUp', c.get('clientIp'), limits.signUp);
    const { user, session } = await service.signUp(
      {
        email: body.email,
        password: body.password,
        data: body.data,
        redirectTo: queryString(c, 'redirect_to'),
        pkce: pkceChallenge(body.code_challenge, body.code_challenge_method),
      },
      requestMeta(c),
    );
    // The service interface's clients read the user at the top level; auth-js reads a session when one is present.
    return c.json(session ? { ...session, ...user, user } : user);
  });

  app.post('/token', async (c) => {
    const grant = c.req.query('grant_type');
    if (grant === 'password') {
      await enforceLimit(c, limiter, 'signIn', c.get('clientIp'), limits.signIn);
      const body = await jsonBody(c);
      return c.json(await service.signInWithPassword({ email: body.email, password: body.password }, requestMeta(c)));
    }
    if (grant === 'refresh_token') {
      const body = await jsonBody(c);
      const token = typeof body.refresh_token === 'string' ? body.refresh_token : '';
      const owner = token ? await service.refreshTokenOwner(token) : undefined;
      // Per user when the token is known; unknown tokens count against the caller's address instead.
      if (owner) await enforceLimit(c, limiter, 'refresh', owner, limits.refresh);
      else await enforceLimit(c, limiter, 'other', c.get('clientIp'), limits.other);
      return c.json(await service.refresh(body.refresh_token));
    }
    if (grant === 'pkce') {
      // An auth code is 256 random bits spent once: guessing one counts as a sign-in attempt.
      await enforceLimit(c, limiter, 'signIn', c.get('clientIp'), limits.signIn);
      const body = await jsonBody(c);
      return c.json(await service.exchangeAuthCode(body.auth_code, body.code_verifier, requestMeta(c)));
    }
    if (grant === 'id_token') {
      await enforceLimit(c, limiter, 'signIn', c.get('clientIp'), limits.signIn);
      const body = await jsonBody(c);
      return c.json(await idToken.signIn(body, requestMeta(c), await idTokenLinkTarget(c, body, { ctx, service })));
    }
    await enforceLimit(c, limiter, 'other', c.get('clientIp'), limits.other);
    throw authErrors.validation('unsupported_grant_type: use password, refresh_token, pkce or id_token');
  });

  app.post('/logout', async (c) => {
    await enforceLimit(c, limiter, 'other', c.get('clientIp'), limits.other);
    const scope = c.req.query('scope') ?? 'global';
    if (scope !== 'global' && scope !== 'local' && scope !== 'others') {
      throw authErrors.validation('scope must be global, local or others');
    }
    await service.logout(callerClaims(c), scope);
    return c.body(null, 204);
  });

  app.post('/recover', async (c) => {
    const body = await jsonBody(c);
    if (typeof body.email !== 'string' || body.email === '')
      throw authErrors.validation('Password recovery requires an email');
    // Checked as typed (GoTrue does not trim), and counted against the address it names.
    const email = validEmail(body.email);
    await enforceLimit(c, limiter, 'recover', email, limits.recover);
    await service.recover(
      email,
      queryString(c, 'redirect_to') ?? (typeof body.redirect_to === 'string' ? body.redirect_to : undefined),
      pkceChallenge(body.code_challenge, body.code_challenge_method),
    );
    return c.json({});
  });

  return app;
}
