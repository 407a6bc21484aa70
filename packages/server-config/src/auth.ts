// Auth (/auth/v1): passwords, tokens, e-mail links, rate limits, mail providers.
import * as v from 'valibot';
import { bool, url, nonEmpty, positiveInt, wholeNumber } from './fields.js';
import { webauthnSettings } from './webauthn.js';

export const authSettings = {
  // Auth (/auth/v1): passwords, tokens, e-mail links, rate limits, mail providers.
  ...webauthnSettings,
  AUTH_MIN_PASSWORD_LENGTH: v.optional(positiveInt, '8'),
  AUTH_MAX_PASSWORD_LENGTH: v.optional(positiveInt, '72'),
  AUTH_PASSWORD_REQUIRED_CHARACTERS: v.optional(
    v.pipe(
      v.string(),
      v.regex(
        /^((lower|upper|digit|symbol)(,(lower|upper|digit|symbol))*)?$/,
        'must be a comma-separated list of lower, upper, digit, symbol',
      ),
    ),
    '',
  ),
  AUTH_AUTOCONFIRM: v.optional(bool, 'true'),
  AUTH_DISABLE_SIGNUP: v.optional(bool, 'false'),
  AUTH_ANONYMOUS_SIGN_INS: v.optional(bool, 'false'),
  // On: signInWithOtp without sign-up for an address with no account answers GoTrue's 422 otp_disabled, which tells
  // the caller that the address has no account; off (ours), every address gets the same {}. E-mail only: phone
  // answers carry the SMS provider's message id, as GoTrue's do, so they differ anyway (docs/auth.md).
  AUTH_OTP_REVEAL_UNKNOWN_ADDRESSES: v.optional(bool, 'false'),
  // Off: /auth/v1 answers requests without an `apikey` as anon (a bare GoTrue does; Supabase's gateway does not).
  AUTH_REQUIRE_APIKEY: v.optional(bool, 'true'),
  // GoTrue's GOTRUE_SECURITY_MANUAL_LINKING_ENABLED (the CLI's enable_manual_linking): linkIdentity, unlinkIdentity.
  AUTH_MANUAL_LINKING_ENABLED: v.optional(bool, 'false'),
  // GoTrue's GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION (the CLI's secure_password_change).
  AUTH_SECURE_PASSWORD_CHANGE: v.optional(bool, 'false'),
  AUTH_ACCESS_TOKEN_SECONDS: v.optional(positiveInt, '3600'),
  AUTH_REFRESH_REUSE_SECONDS: v.optional(wholeNumber, '10'),
  AUTH_ONE_TIME_TOKEN_SECONDS: v.optional(positiveInt, '3600'),
  AUTH_REDIRECT_ALLOW_LIST: v.optional(v.string(), ''),
  AUTH_RATE_LIMIT_STORE: v.optional(v.picklist(['memory', 'postgres'], 'must be memory or postgres'), 'memory'),
  AUTH_RATE_LIMIT_WINDOW_SECONDS: v.optional(positiveInt, '3600'),
  AUTH_RATE_LIMIT_SIGN_IN: v.optional(positiveInt, '30'),
  AUTH_RATE_LIMIT_SIGN_UP: v.optional(positiveInt, '5'),
  AUTH_RATE_LIMIT_RECOVER: v.optional(positiveInt, '5'),
  AUTH_RATE_LIMIT_REFRESH: v.optional(positiveInt, '60'),
  AUTH_RATE_LIMIT_MFA_VERIFY: v.optional(positiveInt, '30'),
  AUTH_RATE_LIMIT_ANONYMOUS: v.optional(positiveInt, '30'),
  AUTH_RATE_LIMIT_OTHER: v.optional(positiveInt, '3600'),
  JWT_ES256_PRIVATE_KEY: v.optional(nonEmpty),
  // GoTrue's GOTRUE_JWT_KEYS / the CLI's signing_keys.json: RS256 and ES256 keys trusted for API keys and tokens.
  AUTH_JWT_KEYS: v.optional(
    v.pipe(
      nonEmpty,
      v.check((s) => {
        try {
          return typeof JSON.parse(s) === 'object';
        } catch {
          return false;
        }
      }, 'must be a JSON array of JWKs'),
    ),
  ),
  // The OAuth 2.1 authorization server (docs/auth.md, "OAuth 2.1 server"); GoTrue's GOTRUE_OAUTH_SERVER_* names.
  AUTH_OAUTH_SERVER_ENABLED: v.optional(bool, 'false'),
  AUTH_OAUTH_SERVER_AUTHORIZATION_PATH: v.optional(
    v.pipe(v.string(), v.regex(/^\/[^?#\s]*$/, 'must be a path starting with /')),
    '/oauth/consent',
  ),
  AUTH_OAUTH_SERVER_AUTHORIZATION_SECONDS: v.optional(positiveInt, '600'),
  AUTH_OAUTH_SERVER_CODE_SECONDS: v.optional(positiveInt, '300'),
  MAIL_FROM: v.optional(nonEmpty, 'auction-ops <noreply@localhost>'),
  RESEND_API_KEY: v.optional(nonEmpty),
  RESEND_BASE_URL: v.optional(url, 'https://api.resend.com'),
  SMTP_URL: v.optional(v.pipe(v.string(), v.regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL'))),
};
