// The settings of the auth flows (from the server's configuration) and what a request tells them about its caller.
import type { PasswordPolicy } from './password-policy.js';

export interface AuthSettings {
  /** {base_url}: links in e-mails point at {publicUrl}/auth/v1/verify; iss = {publicUrl}/auth/v1. */
  publicUrl: string;
  /** Where e-mail links land when no allowed redirect_to is given. */
  appUrl: string;
  /** Further redirect targets: URL prefixes (https://app.example.com/) or origins. */
  redirectAllowList: readonly string[];
  autoconfirm: boolean;
  disableSignup: boolean;
  /** signInAnonymously (AUTH_ANONYMOUS_SIGN_INS). */
  anonymousSignIns: boolean;
  accessTokenSeconds: number;
  oneTimeTokenSeconds: number;
  refreshReuseSeconds: number;
  passwordPolicy: PasswordPolicy;
  /** Key for deriving refresh-token successors (the JWT secret serves). */
  tokenKey: string;
}

export interface RequestMeta {
  ip?: string;
  userAgent?: string;
}
