// Passkeys and WebAuthn MFA factors from configuration (server-config's webauthn.ts): one relying party for both.
import {
  type AuthService,
  createPasskeyService,
  createWebAuthnFactorService,
  type PasskeyService,
  type WebAuthnFactorService,
} from '@auction-ops/auth-core';
import { ConfigError, relyingPartyOf } from '@auction-ops/server-config';
import type { ServerContext } from '../context.js';

export function createWebAuthnServices(
  ctx: ServerContext,
  service: AuthService,
): { passkeys: PasskeyService; webauthnFactors: WebAuthnFactorService } {
  const { config } = ctx;
  const relyingParty = relyingPartyOf(config);
  if (typeof relyingParty === 'string') {
    const inUse =
      config.AUTH_PASSKEYS_ENABLED ||
      config.AUTH_MFA_WEBAUTHN_ENROLL_ENABLED ||
      config.AUTH_MFA_WEBAUTHN_VERIFY_ENABLED;
    // A relying party nobody uses is no reason to refuse the start; its endpoints answer as disabled.
    if (inUse) throw new ConfigError(`invalid configuration: ${relyingParty}`);
  }
  const rp =
    typeof relyingParty === 'string' ? { id: 'invalid', name: '', origins: [], challengeSeconds: 1 } : relyingParty;
  return {
    passkeys: createPasskeyService(ctx.ownerRequestSql, service, {
      enabled: config.AUTH_PASSKEYS_ENABLED,
      relyingParty: rp,
      maxPerUser: 10, // GoTrue's GOTRUE_PASSKEY_MAX_PASSKEYS_PER_USER default
    }),
    webauthnFactors: createWebAuthnFactorService(ctx.ownerRequestSql, service, {
      enrollEnabled: config.AUTH_MFA_WEBAUTHN_ENROLL_ENABLED,
      verifyEnabled: config.AUTH_MFA_WEBAUTHN_VERIFY_ENABLED,
      relyingParty: rp,
      maxFactors: 10,
    }),
  };
}
