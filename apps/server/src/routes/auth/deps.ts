// What every auth route module receives.
import type {
  AdminService,
  AuthService,
  EmailOtpService,
  IdTokenGrant,
  MfaService,
  OAuthServer,
  OAuthService,
  PhoneAuthService,
  PhoneFactors,
  PasskeyService,
  ProviderRegistry,
  RateLimiter,
  Reauthentication,
  WebAuthnFactorService,
} from '@auction-ops/auth-core';
import type { ServerContext } from '../../context.js';
import type { SamlServices } from '../../services/saml-services.js';
import type { AuthLimits } from './auth-http.js';

export interface AuthDeps {
  ctx: ServerContext;
  service: AuthService;
  admin: AdminService;
  mfa: MfaService;
  otp: EmailOtpService;
  oauth: OAuthService;
  /** The OAuth 2.1 authorization server, when AUTH_OAUTH_SERVER_ENABLED is on. */
  oauthServer: OAuthServer | undefined;
  idToken: IdTokenGrant;
  /** SAML SSO, when AUTH_SAML_ENABLED is on. */
  sso: SamlServices | undefined;
  providers: ProviderRegistry;
  limiter: RateLimiter;
  limits: AuthLimits;
  reauth: Reauthentication;
  phone: PhoneAuthService;
  phoneFactors: PhoneFactors;
  passkeys: PasskeyService;
  webauthnFactors: WebAuthnFactorService;
}
