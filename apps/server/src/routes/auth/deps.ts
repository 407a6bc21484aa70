// What every auth route module receives.
import type {
  AdminService,
  AuthService,
  EmailOtpService,
  IdTokenGrant,
  MfaService,
  OAuthService,
  PasskeyService,
  ProviderRegistry,
  RateLimiter,
  Reauthentication,
  WebAuthnFactorService,
} from '@auction-ops/auth-core';
import type { ServerContext } from '../../context.js';
import type { AuthLimits } from './auth-http.js';

export interface AuthDeps {
  ctx: ServerContext;
  service: AuthService;
  admin: AdminService;
  mfa: MfaService;
  otp: EmailOtpService;
  oauth: OAuthService;
  idToken: IdTokenGrant;
  providers: ProviderRegistry;
  limiter: RateLimiter;
  limits: AuthLimits;
  reauth: Reauthentication;
  passkeys: PasskeyService;
  webauthnFactors: WebAuthnFactorService;
}
