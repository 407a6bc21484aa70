// The auth family's errors: one class, one factory per failure. The HTTP edge renders them as
// {error, error_description, error_code, msg} so both older clients and auth-js read the code (docs/errors.md).
export type WeakPasswordReason = 'length' | 'characters' | 'pwned';

export class AuthError extends Error {
  override name = 'AuthError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }

  toBody(): Record<string, unknown> {
    return {
      error: this.code,
      error_description: this.message,
      error_code: this.code,
      msg: this.message,
      ...this.extra,
    };
  }
}

/**
 * GoTrue's OAuthError, which the id_token grant answers: always 400, only `{error, error_description}`, where
 * `error` is a phrase such as "invalid request" and there is no error_code (auth-js then shows the description).
 */
class OAuthGrantError extends AuthError {
  override toBody(): Record<string, unknown> {
    return { error: this.extra.error, error_description: this.message };
  }
}

export const oauthGrantError = (error: string, description: string) =>
  new OAuthGrantError(400, error.replace(/ /g, '_'), description, { error });

export const authErrors = {
  invalidCredentials: () => new AuthError(400, 'invalid_grant', 'Invalid login credentials'),
  invalidRefreshToken: (why = 'Invalid Refresh Token: Refresh Token Not Found') =>
    new AuthError(400, 'invalid_grant', why),
  userAlreadyExists: () => new AuthError(400, 'user_already_exists', 'User already registered'),
  emailExists: () => new AuthError(422, 'email_exists', 'A user with this email address has already been registered'),
  invalidToken: (why = 'invalid JWT: unable to parse or verify signature') => new AuthError(401, 'invalid_token', why),
  notAuthenticated: () => new AuthError(401, 'not_authenticated', 'This endpoint requires a Bearer token'),
  sessionNotFound: () => new AuthError(403, 'session_not_found', 'Session from session_id claim in JWT does not exist'),
  notAdmin: () => new AuthError(403, 'not_admin', 'User not allowed'),
  weakPassword: (reasons: WeakPasswordReason[], message: string) =>
    new AuthError(422, 'weak_password', message, { weak_password: { reasons } }),
  samePassword: () => new AuthError(422, 'same_password', 'New password should be different from the old password.'),
  rateLimited: (what: string) =>
    new AuthError(429, 'rate_limit_exceeded', `Too many ${what} requests; try again later`),
  validation: (message: string) => new AuthError(400, 'validation_failed', message),
  badJson: () => new AuthError(400, 'bad_json', 'Could not parse request body as JSON'),
  signupDisabled: () => new AuthError(422, 'signup_disabled', 'Signups not allowed for this instance'),
  emailNotConfirmed: () => new AuthError(400, 'email_not_confirmed', 'Email not confirmed'),
  userBanned: () => new AuthError(400, 'user_banned', 'User is banned'),
  userNotFound: () => new AuthError(404, 'user_not_found', 'User not found'),
  otpExpired: () => new AuthError(403, 'otp_expired', 'Email link is invalid or has expired'),
  conflict: (message: string) => new AuthError(409, 'conflict', message),
  notFound: (message = 'Not found') => new AuthError(404, 'not_found', message),
  tooLarge: () => new AuthError(413, 'request_too_large', 'Request body too large'),
  emailInvalid: () => new AuthError(400, 'email_address_invalid', 'Unable to validate email address: invalid format'),
  mfaFactorNotFound: () => new AuthError(404, 'mfa_factor_not_found', 'Factor not found'),
  mfaFactorNameConflict: (name: string) =>
    new AuthError(
      422,
      'mfa_factor_name_conflict',
      `A factor with the friendly name "${name}" for this user already exists`,
    ),
  tooManyFactors: () =>
    new AuthError(
      422,
      'too_many_enrolled_mfa_factors',
      'Maximum number of verified factors reached, unenroll to continue',
    ),
  insufficientAal: (status: 403 | 422, message: string) => new AuthError(status, 'insufficient_aal', message),
  mfaChallengeExpired: () =>
    new AuthError(422, 'mfa_challenge_expired', 'MFA challenge has expired, verify against another challenge'),
  mfaIpMismatch: () => new AuthError(422, 'mfa_ip_address_mismatch', 'Challenge and verify IP addresses mismatch'),
  mfaVerificationFailed: () => new AuthError(422, 'mfa_verification_failed', 'Invalid TOTP code entered'),
  anonymousDisabled: () => new AuthError(422, 'anonymous_provider_disabled', 'Anonymous sign-ins are disabled'),
  anonymousPasswordWithoutEmail: () =>
    new AuthError(422, 'validation_failed', 'Updating password of an anonymous user without an email is not allowed'),
  flowStateNotFound: () => new AuthError(404, 'flow_state_not_found', 'invalid flow state, no valid flow state found'),
  flowStateExpired: () => new AuthError(422, 'flow_state_expired', 'invalid flow state, flow state has expired'),
  badCodeVerifier: () =>
    new AuthError(400, 'bad_code_verifier', 'code challenge does not match previously saved code verifier'),
  identityAlreadyExists: () =>
    new AuthError(422, 'identity_already_exists', 'Identity is already linked to another user'),
  manualLinkingDisabled: () => new AuthError(404, 'manual_linking_disabled', 'Manual linking is disabled'),
  identityNotFound: () => new AuthError(422, 'identity_not_found', "Identity doesn't exist"),
  singleIdentityNotDeletable: () =>
    new AuthError(422, 'single_identity_not_deletable', 'User must have at least 1 identity after unlinking'),
  providerDisabled: (provider: string) =>
    new AuthError(400, 'validation_failed', `Unsupported provider: provider ${provider} is not enabled`),
  providerNotEnabled: (issuer: string) =>
    new AuthError(400, 'provider_disabled', `Provider (issuer "${issuer}") is not enabled`),
  badOAuthState: (why: string) => new AuthError(400, 'bad_oauth_state', why),
  badOAuthCallback: (why: string) => new AuthError(400, 'bad_oauth_callback', why),
  // GoTrue's answers (500, unexpected_failure) when the provider's profile cannot be read or has no address.
  providerProfileUnreadable: () =>
    new AuthError(500, 'unexpected_failure', 'Error getting user profile from external provider'),
  providerEmailMissing: () =>
    new AuthError(500, 'unexpected_failure', 'Error getting user email from external provider'),
  providerEmailNeedsVerification: (provider: string) =>
    new AuthError(
      422,
      'provider_email_needs_verification',
      `Unverified email with ${provider}. Verify the email with ${provider} in order to sign in`,
    ),
  oauthClientNotFound: (status: 400 | 404 = 404, message = 'OAuth client not found') =>
    new AuthError(status, 'oauth_client_not_found', message),
  oauthAuthorizationNotFound: () => new AuthError(404, 'oauth_authorization_not_found', 'authorization not found'),
  oauthConsentNotFound: () => new AuthError(404, 'oauth_consent_not_found', 'No active grant found for this client'),
  invalidClientCredentials: (why: string) =>
    new AuthError(400, 'invalid_credentials', `Invalid client credentials: ${why}`),
  // Phone sign-in and SMS, in GoTrue's words.
  phoneInvalid: () => new AuthError(400, 'validation_failed', 'Invalid phone number format (E.164 required)'),
  phoneProviderDisabled: (message: string) => new AuthError(400, 'phone_provider_disabled', message),
  phoneLoginsDisabled: () => new AuthError(422, 'phone_provider_disabled', 'Phone logins are disabled'),
  phoneExists: () => new AuthError(422, 'phone_exists', 'A user with this phone number has already been registered'),
  phoneNotConfirmed: () => new AuthError(400, 'phone_not_confirmed', 'Phone not confirmed'),
  invalidChannel: () =>
    new AuthError(
      400,
      'validation_failed',
      "Invalid channel, supported values are 'sms' or 'whatsapp'. 'whatsapp' is only supported if Twilio or Twilio Verify is used as the provider.",
    ),
  smsTooSoon: (seconds: number) =>
    new AuthError(
      429,
      'over_sms_send_rate_limit',
      `For security purposes, you can only request this after ${seconds} seconds.`,
    ),
  smsRateLimited: () => new AuthError(429, 'over_sms_send_rate_limit', 'SMS rate limit exceeded'),
  smsSendFailed: (purpose: string, why: string) =>
    new AuthError(422, 'sms_send_failed', `Error sending ${purpose} OTP to provider: ${why}`),
  tokenExpired: () => new AuthError(403, 'otp_expired', 'Token has expired or is invalid'),
  otpSignupsDisabled: () => new AuthError(422, 'otp_disabled', 'Signups not allowed for otp'),
  mfaPhoneDisabled: (what: 'enroll' | 'verify') =>
    new AuthError(
      422,
      `mfa_phone_${what}_not_enabled`,
      what === 'enroll' ? 'MFA enroll is disabled for Phone' : 'MFA verification is disabled for Phone',
    ),
  mfaVerifiedPhoneExists: () =>
    new AuthError(
      422,
      'mfa_verified_factor_exists',
      'A verified phone factor already exists, unenroll the existing factor to continue',
    ),
  mfaPhoneCodeFailed: () => new AuthError(422, 'mfa_verification_failed', 'Invalid MFA Phone code entered'),
  unexpected: () => new AuthError(500, 'unexpected_failure', 'Unexpected failure, please check server logs'),
};
