// Public surface of @auction-ops/auth-core.
export { authMigrations } from './migrations.js';
export {
  createTokenVerifier,
  createTokenSigner,
  signApiKey,
  secretKey,
  TokenError,
  type Claims,
  type TokenVerifier,
  type TokenSigner,
  type SigningKey,
} from './jwt.js';
export { loadSecrets, type Secrets } from './jwt-secret-store.js';
export { createReauthentication, type Reauthentication } from './reauthentication.js';
export { importConfiguredKeys, type ConfiguredKeys, type TrustedKey } from './trusted-keys.js';
export { AuthError, authErrors, oauthGrantError, type WeakPasswordReason } from './errors.js';
export { hashPassword, verifyPassword } from './password-hasher.js';
export { checkPassword, parseCharacterClasses, type PasswordPolicy, type CharacterClass } from './password-policy.js';
export { createAuthService, type AuthService } from './auth-service.js';
export type { AuthSettings, RequestMeta } from './auth-settings.js';
export { subject, validEmail } from './auth-input.js';
export type { VerifyType } from './email-verification.js';
export { createAdminService, type AdminService } from './admin-service.js';
export { pkceChallenge, FLOW_STATE_SECONDS, type PkceChallenge } from './pkce-flow.js';
export {
  createProviderRegistry,
  DEFAULT_ISSUERS,
  OAUTH_PROVIDERS,
  type OAuthProviderName,
  type OAuthProviderSettings,
  type ProviderRegistry,
} from './oauth-providers.js';
export { createOAuthService, type OAuthService, type CallbackOutcome } from './oauth-service.js';
export { createOAuthServer, type OAuthServer } from './oauth-server.js';
export type { OAuthServerSettings, AuthorizationDetails, OAuthGrant } from './oauth-authorizations.js';
export type { ClientCredentials, OAuthClientJson } from './oauth-clients.js';
export { SUPPORTED_SCOPES as OAUTH_SERVER_SCOPES, type TokenEndpointAuthMethod } from './oauth-client-params.js';
export type { OAuthTokenResponse, TokenParams } from './oauth-token-grant.js';
export { createIdTokenGrant, type IdTokenGrant } from './id-token-grant.js';
export { unlinkIdentity } from './identity-repository.js';
export { createEmailOtpService, type EmailOtpService } from './email-otp-service.js';
export { createMfaService, type MfaService, type MfaSettings } from './mfa-service.js';
export { createSecretBox, type SecretBox } from './mfa-secret-box.js';
export { createPasskeyService, type PasskeyService, type PasskeySettings } from './passkey-service.js';
export {
  createWebAuthnFactorService,
  type WebAuthnFactorService,
  type WebAuthnFactorSettings,
} from './webauthn-factor-service.js';
export type { RelyingParty } from './webauthn-ceremony.js';
export { webauthnErrors } from './webauthn-errors.js';
export {
  RateLimiter,
  memoryRateLimitStore,
  postgresRateLimitStore,
  type RateLimitStore,
  type RateLimitResult,
  type RateLimitRule,
} from './rate-limiter.js';
export {
  createMailer,
  outboxMailer,
  resendMailer,
  smtpMailer,
  listOutbox,
  getOutboxMessage,
  type Mailer,
  type MailMessage,
  type MailerConfig,
  type OutboxMessage,
} from './mailer.js';
export { linkMail } from './mail-templates.js';
export type { UserJson, SessionJson } from './user-view.js';
export { normalizeEmail } from './user-repository.js';
export { formatPhone, validPhone, parseTestOtps } from './phone-number.js';
export {
  messagebirdSmsSender,
  noSmsSender,
  textlocalSmsSender,
  twilioSmsSender,
  vonageSmsSender,
  type MessagebirdSettings,
  type SmsChannel,
  type SmsMessage,
  type SmsSender,
  type TextlocalSettings,
  type TwilioSettings,
  type VonageSettings,
} from './sms-sender.js';
export { createPhoneCodes, type PhoneCodes, type PhoneCodeSettings } from './phone-codes.js';
export {
  createPhoneAuthService,
  type PhoneAuthService,
  type PhoneAuthSettings,
  type PhoneVerifyType,
} from './phone-auth-service.js';
export { createPhoneFactors, type PhoneFactors, type PhoneFactorSettings } from './phone-factors.js';
export { createSamlService, type SamlService, type SamlSettings, type SamlOutcome } from './saml-service.js';
export { createSsoProviders, type SsoProviders } from './sso-providers.js';
