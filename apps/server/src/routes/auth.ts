// /auth/v1: mounts the route modules over the auth services the composition root built (services/). Errors are
// rendered in the auth shape {error, error_description, error_code, msg}.
import { Hono } from 'hono';
import { isBodyBreakOff } from '../http/body-watch.js';
import { bodyLimit } from 'hono/body-limit';
import { AuthError, authErrors, OAUTH_PROVIDERS } from '@auction-ops/auth-core';
import type { AppEnv, ServerContext } from '../context.js';
import type { AuthServices } from '../services/auth-services.js';
import { version } from '../version.js';
import { enforceLimit, MAX_AUTH_BODY_BYTES, renderError } from './auth/auth-http.js';
import type { AuthDeps } from './auth/deps.js';
import { sessionRoutes } from './auth/session-routes.js';
import { userRoutes } from './auth/user-routes.js';
import { verifyRoutes } from './auth/verify-routes.js';
import { adminRoutes, inviteRoutes } from './auth/admin-routes.js';
import { factorRoutes } from './auth/factor-routes.js';
import { otpRoutes } from './auth/otp-routes.js';
import { oauthRoutes } from './auth/oauth-routes.js';
import { oauthServerRoutes } from './auth/oauth-server-routes.js';
import { disabledFeatureRoutes } from './auth/disabled-features.js';
import { reauthenticateRoutes } from './auth/reauthenticate-routes.js';
import { phoneRoutes } from './auth/phone-routes.js';
import { adminPasskeyRoutes, passkeyRoutes } from './auth/passkey-routes.js';
import { webauthnFactorRoutes } from './auth/webauthn-factor-routes.js';
import { samlRoutes } from './auth/saml-routes.js';

export function authRoutes(ctx: ServerContext, services: AuthServices): Hono<AppEnv> {
  const { config } = ctx;
  const { service, admin, mfa, otp, oauth, oauthServer, idToken, providers, limiter, limits, passwordPolicy, reauth } =
    services;
  const { phone, phoneFactors, sms, passkeys, webauthnFactors, sso } = services;
  const deps: AuthDeps = {
    ctx,
    service,
    admin,
    mfa,
    otp,
    oauth,
    oauthServer,
    idToken,
    sso,
    providers,
    limiter,
    limits,
    reauth,
    phone,
    phoneFactors,
    passkeys,
    webauthnFactors,
  };
  const other = async (c: Parameters<typeof renderError>[0]) =>
    enforceLimit(c, limiter, 'other', c.get('clientIp'), limits.other);

  const app = new Hono<AppEnv>();
  app.use(
    '*',
    bodyLimit({
      maxSize: MAX_AUTH_BODY_BYTES,
      onError: () => {
        throw authErrors.tooLarge();
      },
    }),
  );
  // Before /admin and /user: the OAuth server's paths lie under both.
  if (oauthServer) app.route('/', oauthServerRoutes(deps, oauthServer));
  if (sso) app.route('/', samlRoutes(deps, sso));
  app.route('/', disabledFeatureRoutes(deps));
  // Before the e-mail routes: takes the requests that name a phone number and hands the rest on.
  app.route('/', phoneRoutes(deps));
  app.route('/', sessionRoutes(deps));
  app.route('/user', userRoutes(deps));
  app.route('/verify', verifyRoutes(deps));
  app.route('/passkeys', passkeyRoutes(deps));
  app.route('/admin/users', adminPasskeyRoutes(deps));
  app.route('/admin', adminRoutes(deps));
  app.route('/invite', inviteRoutes(deps));
  app.route('/reauthenticate', reauthenticateRoutes(deps));
  app.route('/factors', webauthnFactorRoutes(deps));
  app.route('/factors', factorRoutes(deps));
  app.route('/', otpRoutes(deps));
  app.route('/', oauthRoutes(deps));
  app.get('/settings', async (c) => {
    await other(c);
    return c.json({
      external: {
        email: true,
        phone: config.AUTH_EXTERNAL_PHONE_ENABLED,
        anonymous_users: config.AUTH_ANONYMOUS_SIGN_INS,
        ...Object.fromEntries(OAUTH_PROVIDERS.map((name) => [name, providers.enabled(name)])),
      },
      disable_signup: config.AUTH_DISABLE_SIGNUP,
      mailer_autoconfirm: config.AUTH_AUTOCONFIRM,
      phone_autoconfirm: config.AUTH_SMS_AUTOCONFIRM,
      sms_provider: sms.provider === 'none' ? '' : sms.provider,
      saml_enabled: sso !== undefined,
      password_min_length: passwordPolicy.minLength,
    });
  });
  app.get('/health', async (c) => {
    await other(c);
    return c.json({
      version,
      name: 'auction-ops-auth',
      description: 'auction-ops auth: GoTrue-compatible API for supabase-js',
    });
  });
  app.get('/.well-known/jwks.json', async (c) => {
    await other(c);
    c.header('Cache-Control', 'public, max-age=600');
    return c.json(service.jwks());
  });
  app.all('*', async (c) => {
    await other(c);
    throw authErrors.notFound('no route matches this request');
  });
  app.onError((error, c) => {
    if (error instanceof AuthError) return renderError(c, error);
    if (isBodyBreakOff(error)) return renderError(c, authErrors.unexpected());
    ctx.log.error('auth request failed', { id: c.get('requestId'), error: error.message, stack: error.stack });
    return renderError(c, authErrors.unexpected());
  });
  return app;
}
