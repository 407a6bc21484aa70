// WebAuthn (/auth/v1/passkeys and WebAuthn MFA factors): the switches and the relying party. GoTrue's names:
// GOTRUE_PASSKEY_ENABLED, GOTRUE_MFA_WEB_AUTHN_ENROLL_ENABLED / _VERIFY_ENABLED, GOTRUE_WEBAUTHN_RP_ID,
// _RP_ORIGINS, _RP_DISPLAY_NAME (the CLI's [auth.passkey], [auth.mfa.web_authn], [auth.webauthn]).
import * as v from 'valibot';
import { bool, commaSeparated, nonEmpty, positiveInt } from './fields.js';

function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value;
  } catch {
    return false;
  }
}

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;

export const webauthnSettings = {
  AUTH_PASSKEYS_ENABLED: v.optional(bool, 'false'),
  AUTH_MFA_WEBAUTHN_ENROLL_ENABLED: v.optional(bool, 'false'),
  AUTH_MFA_WEBAUTHN_VERIFY_ENABLED: v.optional(bool, 'false'),
  // Default: APP_URL's host name (the app's pages run the ceremonies, not this API).
  AUTH_WEBAUTHN_RP_ID: v.optional(
    v.pipe(v.string(), v.regex(HOST_NAME, 'must be a domain name in lower case (no scheme, no port)')),
  ),
  // Default: APP_URL's origin.
  AUTH_WEBAUTHN_RP_ORIGINS: v.optional(
    commaSeparated(isOrigin, 'must be comma-separated origins such as https://app.example.com (no path)'),
  ),
  AUTH_WEBAUTHN_RP_DISPLAY_NAME: v.optional(nonEmpty, 'auction-ops'),
  AUTH_WEBAUTHN_CHALLENGE_SECONDS: v.optional(positiveInt, '300'),
};

/**
 * The relying party from the settings and APP_URL; a message when the RP ID cannot serve an origin (browsers
 * only accept an RP ID equal to the origin's host or a parent domain of it), so a wrong setup stops the start.
 */
export function relyingPartyOf(config: {
  APP_URL: string;
  AUTH_WEBAUTHN_RP_ID?: string;
  AUTH_WEBAUTHN_RP_ORIGINS?: string[];
  AUTH_WEBAUTHN_RP_DISPLAY_NAME: string;
  AUTH_WEBAUTHN_CHALLENGE_SECONDS: number;
}): { id: string; name: string; origins: string[]; challengeSeconds: number } | string {
  const app = new URL(config.APP_URL);
  const id = config.AUTH_WEBAUTHN_RP_ID ?? app.hostname;
  const origins = config.AUTH_WEBAUTHN_RP_ORIGINS?.length ? config.AUTH_WEBAUTHN_RP_ORIGINS : [app.origin];
  for (const origin of origins) {
    const host = new URL(origin).hostname;
    if (host !== id && !host.endsWith(`.${id}`)) {
      return `AUTH_WEBAUTHN_RP_ID=${JSON.stringify(id)} is neither the host of ${origin} nor a parent domain of it`;
    }
  }
  return {
    id,
    name: config.AUTH_WEBAUTHN_RP_DISPLAY_NAME,
    origins,
    challengeSeconds: config.AUTH_WEBAUTHN_CHALLENGE_SECONDS,
  };
}
