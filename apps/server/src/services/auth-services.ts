// The auth family's services from configuration: token signer, password policy, auth and admin services, and
// the per-IP/e-mail/user limits of its endpoints.
import {
  type AdminService,
  type AuthService,
  createAdminService,
  createAuthService,
  createEmailOtpService,
  createMfaService,
  createSecretBox,
  createTokenSigner,
  createOAuthServer,
  type OAuthServer,
  createReauthentication,
  type Reauthentication,
  importConfiguredKeys,
  type Mailer,
  type EmailOtpService,
  type MfaService,
  type IdTokenGrant,
  type OAuthService,
  type ProviderRegistry,
  type PasskeyService,
  type WebAuthnFactorService,
  memoryRateLimitStore,
  type PasswordPolicy,
  parseCharacterClasses,
  postgresRateLimitStore,
  RateLimiter,
} from '@auction-ops/auth-core';
import type { ServerContext } from '../context.js';
import type { AuthLimits } from '../routes/auth/auth-http.js';
import { createOAuthServices } from './oauth-services.js';
import { createPhoneServices, type PhoneServices } from './phone-services.js';
import { createWebAuthnServices } from './webauthn-services.js';
import { createSamlServices, type SamlServices } from './saml-services.js';

export interface AuthServices extends PhoneServices {
  service: AuthService;
  admin: AdminService;
  mfa: MfaService;
  reauth: Reauthentication;
  otp: EmailOtpService;
  oauth: OAuthService;
  idToken: IdTokenGrant;
  providers: ProviderRegistry;
  /** The OAuth 2.1 authorization server; undefined while AUTH_OAUTH_SERVER_ENABLED is off. */
  oauthServer: OAuthServer | undefined;
  passkeys: PasskeyService;
  webauthnFactors: WebAuthnFactorService;
  /** SAML SSO; undefined while AUTH_SAML_ENABLED is off. */
  sso: SamlServices | undefined;
  limiter: RateLimiter;
  limits: AuthLimits;
  passwordPolicy: PasswordPolicy;
  close(): Promise<void>;
}

export async function createAuthServices(ctx: ServerContext, mailer: Mailer): Promise<AuthServices> {
  const { config } = ctx;
  // AUTH_JWT_KEYS: keys trusted and published by kid, and perhaps the one that signs access tokens (GoTrue's rule).
  const keys = config.AUTH_JWT_KEYS ? await importConfiguredKeys(config.AUTH_JWT_KEYS) : { trusted: [] };
  const signer = await createTokenSigner({
    secret: ctx.jwtSecret,
    es256PrivateKey: config.JWT_ES256_PRIVATE_KEY,
    signingKey: keys.signing,
    published: keys.trusted.map((k) => k.jwk),
  });
  // The gateway verifies every request's token: teach it the asymmetric keys, the signer's among them.
  if (signer.kid && signer.publicKey) ctx.verifier.trustPublicKey(signer.kid, signer.publicKey);
  for (const k of keys.trusted) ctx.verifier.trustPublicKey(k.kid, k.key);
  const passwordPolicy = {
    minLength: config.AUTH_MIN_PASSWORD_LENGTH,
    maxLength: config.AUTH_MAX_PASSWORD_LENGTH,
    requiredClasses: parseCharacterClasses(config.AUTH_PASSWORD_REQUIRED_CHARACTERS),
  };
  const service = createAuthService(
    ctx.ownerRequestSql,
    signer,
    mailer,
    {
      publicUrl: config.PUBLIC_URL,
      appUrl: config.APP_URL,
      redirectAllowList: config.AUTH_REDIRECT_ALLOW_LIST.split(',')
        .map((entry) => entry.trim())
        .filter(Boolean),
      autoconfirm: config.AUTH_AUTOCONFIRM,
      disableSignup: config.AUTH_DISABLE_SIGNUP,
      anonymousSignIns: config.AUTH_ANONYMOUS_SIGN_INS,
      accessTokenSeconds: config.AUTH_ACCESS_TOKEN_SECONDS,
      oneTimeTokenSeconds: config.AUTH_ONE_TIME_TOKEN_SECONDS,
      refreshReuseSeconds: config.AUTH_REFRESH_REUSE_SECONDS,
      passwordPolicy,
      tokenKey: ctx.jwtSecret,
    },
    (msg, fields) => ctx.log.error(msg, fields),
  );
  const admin = createAdminService(ctx.ownerRequestSql, service, {
    passwordPolicy,
    oneTimeTokenSeconds: config.AUTH_ONE_TIME_TOKEN_SECONDS,
  });
  // Factor secrets are sealed with a key derived from JWT_SECRET (HKDF-SHA256, mfa-secret-box.ts).
  const mfa = createMfaService(ctx.ownerRequestSql, service, createSecretBox(ctx.jwtSecret), {
    defaultIssuer: new URL(config.PUBLIC_URL).hostname,
    maxFactors: 10,
    challengeSeconds: 300,
  });
  const otp = createEmailOtpService(ctx.ownerRequestSql, service, {
    disableSignup: config.AUTH_DISABLE_SIGNUP,
    revealUnknownAddresses: config.AUTH_OTP_REVEAL_UNKNOWN_ADDRESSES,
  });
  const limiter = new RateLimiter(
    config.AUTH_RATE_LIMIT_STORE === 'postgres' ? postgresRateLimitStore(ctx.ownerRequestSql) : memoryRateLimitStore(),
  );
  const windowSeconds = config.AUTH_RATE_LIMIT_WINDOW_SECONDS;
  const limits: AuthLimits = {
    signIn: { limit: config.AUTH_RATE_LIMIT_SIGN_IN, windowSeconds },
    signUp: { limit: config.AUTH_RATE_LIMIT_SIGN_UP, windowSeconds },
    recover: { limit: config.AUTH_RATE_LIMIT_RECOVER, windowSeconds },
    refresh: { limit: config.AUTH_RATE_LIMIT_REFRESH, windowSeconds },
    mfaVerify: { limit: config.AUTH_RATE_LIMIT_MFA_VERIFY, windowSeconds },
    anonymous: { limit: config.AUTH_RATE_LIMIT_ANONYMOUS, windowSeconds },
    // Guessing six-digit codes: as many tries per address as sign-ins per IP.
    otpVerify: { limit: config.AUTH_RATE_LIMIT_SIGN_IN, windowSeconds },
    other: { limit: config.AUTH_RATE_LIMIT_OTHER, windowSeconds },
  };
  const reauth = createReauthentication(ctx.ownerRequestSql, mailer, {
    securePasswordChange: config.AUTH_SECURE_PASSWORD_CHANGE,
    nonceSeconds: config.AUTH_ONE_TIME_TOKEN_SECONDS,
  });
  const redirectAllowList = config.AUTH_REDIRECT_ALLOW_LIST.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const oauthServer = config.AUTH_OAUTH_SERVER_ENABLED
    ? createOAuthServer(ctx.ownerRequestSql, service, {
        appUrl: config.APP_URL,
        authorizationPath: config.AUTH_OAUTH_SERVER_AUTHORIZATION_PATH,
        authorizationSeconds: config.AUTH_OAUTH_SERVER_AUTHORIZATION_SECONDS,
        codeSeconds: config.AUTH_OAUTH_SERVER_CODE_SECONDS,
        defaultScope: 'email',
        allowedOrigins: [config.APP_URL, config.PUBLIC_URL, ...redirectAllowList],
      })
    : undefined;
  return {
    service,
    admin,
    oauthServer,
    sso: createSamlServices(ctx, service),
    mfa,
    reauth,
    otp,
    ...createOAuthServices(ctx, service),
    ...createPhoneServices(ctx, service, limiter, passwordPolicy),
    ...createWebAuthnServices(ctx, service),
    limiter,
    limits,
    passwordPolicy,
    async close() {
      await service.drain();
      await limiter.close();
    },
  };
}
