// The WebAuthn errors GoTrue answers for passkeys and WebAuthn MFA factors (its apierrors/errorcode.go), in the auth
// family's shape (errors.ts). Kept apart from errors.ts so each feature's failures read in one place.
import { AuthError } from './errors.js';

export const webauthnErrors = {
  passkeysDisabled: () => new AuthError(404, 'passkey_disabled', 'Passkeys are disabled'),
  tooManyPasskeys: () => new AuthError(422, 'too_many_passkeys', 'Maximum number of passkeys reached'),
  passkeyNotFound: () => new AuthError(404, 'validation_failed', 'Passkey not found'),
  challengeNotFound: () => new AuthError(400, 'webauthn_challenge_not_found', 'Challenge not found or already used'),
  challengeExpired: () => new AuthError(400, 'webauthn_challenge_expired', 'Challenge has expired'),
  verificationFailed: (message = 'Credential verification failed') =>
    new AuthError(400, 'webauthn_verification_failed', message),
  credentialExists: () => new AuthError(422, 'webauthn_credential_exists', 'This credential is already registered'),
  insufficientAal: () =>
    new AuthError(403, 'insufficient_aal', 'AAL2 session is required to manage passkeys when MFA is enabled'),
  anonymousNotAllowed: () =>
    new AuthError(403, 'no_authorization', 'Anonymous user not allowed to perform these actions'),
  userBanned: () => new AuthError(403, 'user_banned', 'User is banned'),
  emailNotConfirmed: () => new AuthError(403, 'email_not_confirmed', 'Email not confirmed'),
  factorEnrollDisabled: () =>
    new AuthError(422, 'mfa_webauthn_enroll_not_enabled', 'MFA enroll is disabled for WebAuthn'),
  factorVerifyDisabled: () =>
    new AuthError(422, 'mfa_webauthn_verify_not_enabled', 'MFA verification is disabled for WebAuthn'),
};
