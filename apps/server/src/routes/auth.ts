// /auth/v1: builds the auth services from configuration (signer, mailer, rate-limit store) and mounts the
// route modules. Errors are rendered in the auth shape {error, error_description, error_code, msg}.
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import {
  AuthError,
  authErrors,
  RateLimiter,
  createAdminService,
  createAuthService,
  createMailer,
  createTokenSigner,
  memoryRateLimitStore,
  parseCharacterClasses,
  postgresRateLimitStore,
} from '@auction-ops/auth-core';
import type { AppEnv, Mounted, ServerContext } from '../context.js';
import { version } from '../version.js';
import { enforceLimit, MAX_AUTH_BODY_BYTES, renderError, type AuthLimits } from './auth/auth-http.js';
import type { AuthDeps } from './auth/deps.js';
import { sessionRoutes } from './auth/session-routes.js';
import { userRoutes } from './auth/user-routes.js';
import { verifyRoutes } from './auth/verify-routes.js';
import { adminRoutes } from './auth/admin-routes.js';

export async function authRoutes(ctx: ServerContext): Promise<Mounted> {
  const { config } = ctx;
  const signer = await createTokenSigner({ secret: ctx.jwtSecret, es256PrivateKey: config.JWT_ES256_PRIVATE_KEY });
  // The gateway verifies every request's token: teach it the asymmetric key when one signs access tokens.
  if (signer.kid && signer.publicKey) ctx.verifier.trustPublicKey(signer.kid, signer.publicKey);
  const mailer = createMailer(ctx.ownerSql, {
    from: config.MAIL_FROM,
    resendApiKey: config.RESEND_API_KEY,
    resendBaseUrl: config.RESEND_BASE_URL,
    smtpUrl: config.SMTP_URL,
  });
  const passwordPolicy = {
    minLength: config.AUTH_MIN_PASSWORD_LENGTH,
    maxLength: config.AUTH_MAX_PASSWORD_LENGTH,
    requiredClasses: parseCharacterClasses(config.AUTH_PASSWORD_REQUIRED_CHARACTERS),
  };
  const service = createAuthService(
    ctx.ownerSql,
    signer,
    mailer,
    {
      publicUrl: config.PUBLIC_URL,
      appUrl: config.APP_URL,
      redirectAllowList: config.AUTH_REDIRECT_ALLOW_LIST.split(',')
        .map((s) => s.trim())
        .filter(Boolean),
      autoconfirm: config.AUTH_AUTOCONFIRM,
      disableSignup: config.AUTH_DISABLE_SIGNUP,
      accessTokenSeconds: config.AUTH_ACCESS_TOKEN_SECONDS,
      oneTimeTokenSeconds: config.AUTH_ONE_TIME_TOKEN_SECONDS,
      refreshReuseSeconds: config.AUTH_REFRESH_REUSE_SECONDS,
      passwordPolicy,
      tokenKey: ctx.jwtSecret,
    },
    (msg, fields) => ctx.log.error(msg, fields),
  );
  const admin = createAdminService(ctx.ownerSql, service, {
    passwordPolicy,
    oneTimeTokenSeconds: config.AUTH_ONE_TIME_TOKEN_SECONDS,
  });
  const limiter = new RateLimiter(
    config.AUTH_RATE_LIMIT_STORE === 'postgres' ? postgresRateLimitStore(ctx.ownerSql) : memoryRateLimitStore(),
  );
  const windowSeconds = config.AUTH_RATE_LIMIT_WINDOW_SECONDS;
  const limits: AuthLimits = {
    signIn: { limit: config.AUTH_RATE_LIMIT_SIGN_IN, windowSeconds },
    signUp: { limit: config.AUTH_RATE_LIMIT_SIGN_UP, windowSeconds },
    recover: { limit: config.AUTH_RATE_LIMIT_RECOVER, windowSeconds },
    refresh: { limit: config.AUTH_RATE_LIMIT_REFRESH, windowSeconds },
    other: { limit: config.AUTH_RATE_LIMIT_OTHER, windowSeconds },
  };
  const deps: AuthDeps = { ctx, service, admin, limiter, limits };
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
  app.route('/', sessionRoutes(deps));
  app.route('/user', userRoutes(deps));
  app.route('/verify', verifyRoutes(deps));
  app.route('/admin', adminRoutes(deps));
  app.get('/settings', async (c) => {
    await other(c);
    return c.json({
      external: { email: true, phone: false, anonymous_users: false },
      disable_signup: config.AUTH_DISABLE_SIGNUP,
      mailer_autoconfirm: config.AUTH_AUTOCONFIRM,
      phone_autoconfirm: false,
      sms_provider: '',
      saml_enabled: false,
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
    ctx.log.error('auth request failed', { id: c.get('requestId'), error: error.message, stack: error.stack });
    return renderError(c, authErrors.unexpected());
  });
  return {
    app,
    async close() {
      await service.drain();
      await Promise.all([limiter.close(), mailer.close?.()]);
    },
  };
}
