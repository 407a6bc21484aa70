// What every auth route module receives.
import type {
  AdminService,
  AuthService,
  EmailOtpService,
  MfaService,
  RateLimiter,
  Reauthentication,
} from '@auction-ops/auth-core';
import type { ServerContext } from '../../context.js';
import type { AuthLimits } from './auth-http.js';

export interface AuthDeps {
  ctx: ServerContext;
  service: AuthService;
  admin: AdminService;
  mfa: MfaService;
  otp: EmailOtpService;
  limiter: RateLimiter;
  limits: AuthLimits;
  reauth: Reauthentication;
}
