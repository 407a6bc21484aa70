// The claims of a provider's answer, as GoTrue's generic OpenID provider reads them: the ID token's first, then the
// userinfo endpoint for what the token lacks. Providers built on node-oidc-provider (its default) and others put
// only `sub` in the ID token and serve the e-mail and profile from userinfo.
import * as oidc from 'openid-client';
import { authErrors } from './errors.js';
import type { ProviderClaims } from './oauth-account.js';

const present = (value: unknown) => typeof value === 'string' && value !== '';

/** Whether the ID token already has what an account is made from: the address and the name. */
const hasProfile = (claims: ProviderClaims) => present(claims.email) && present(claims.name);

/**
 * The ID token's claims, completed from userinfo when it lacks the address or the name and the provider has the
 * endpoint. A claim in the ID token is never replaced (it is signed; userinfo is only TLS-protected), and
 * openid-client refuses a userinfo answer about another subject.
 */
export async function completeFromUserInfo(
  configuration: oidc.Configuration,
  accessToken: string,
  claims: ProviderClaims,
): Promise<ProviderClaims> {
  if (hasProfile(claims) || !configuration.serverMetadata().userinfo_endpoint) return claims;
  let info: oidc.UserInfoResponse;
  try {
    info = await oidc.fetchUserInfo(configuration, accessToken, claims.sub);
  } catch {
    throw authErrors.providerProfileUnreadable();
  }
  const own = Object.fromEntries(Object.entries(claims).filter(([, v]) => v !== undefined && v !== null && v !== ''));
  return { ...info, ...own, sub: claims.sub } as ProviderClaims;
}
