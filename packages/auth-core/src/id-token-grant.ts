// The id_token grant (`POST /token?grant_type=id_token`, supabase-js `signInWithIdToken`): an ID token a mobile or
// web app got from a configured OpenID provider itself is checked against that provider's JWKS (signature, issuer,
// expiry), audience = our client id, the hashed nonce and at_hash; then the callback's account rules sign it in,
// or (link_identity) it joins the signed-in caller's account.
import { createHash } from 'node:crypto';
import * as jose from 'jose';
import type postgres from 'postgres';
import type { AuthService } from './auth-service.js';
import type { RequestMeta } from './auth-settings.js';
import { authErrors, oauthGrantError } from './errors.js';
import { accountForProvider, type ProviderClaims } from './oauth-account.js';
import { DEFAULT_ISSUERS, OAUTH_PROVIDERS, type ProviderRegistry } from './oauth-providers.js';
import type { SessionJson } from './user-view.js';

interface IdTokenGrantInput {
  provider?: unknown;
  id_token?: unknown;
  nonce?: unknown;
  access_token?: unknown;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** GoTrue's answers for a provider it knows but has off, and for one it does not know. */
function refuseProvider(name: string): never {
  if ((OAUTH_PROVIDERS as readonly string[]).includes(name)) {
    const issuer = DEFAULT_ISSUERS[name as keyof typeof DEFAULT_ISSUERS] ?? '';
    throw authErrors.providerNotEnabled(issuer);
  }
  throw authErrors.validation(`Custom OIDC provider "${name}" not allowed`);
}

/** OpenID Core 3.1.3.6: the left half of the token's hash of the access token, base64url (SHA-256 for *256). */
function accessTokenHash(accessToken: string, alg: string): string {
  const bits = alg.endsWith('512') ? 'sha512' : alg.endsWith('384') ? 'sha384' : 'sha256';
  const digest = createHash(bits).update(accessToken).digest();
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

export function createIdTokenGrant(
  sql: postgres.Sql,
  auth: AuthService,
  registry: ProviderRegistry,
  settings: { disableSignup: boolean; autoconfirm: boolean },
) {
  // One key set per provider: jose caches the keys and refetches on an unknown kid (a provider's key rotation).
  const keySets = new Map<string, ReturnType<typeof jose.createRemoteJWKSet>>();

  async function verify(name: string, idToken: string): Promise<{ claims: ProviderClaims; alg: string }> {
    const provider = registry.get(name);
    const metadata = (await provider.configuration()).serverMetadata();
    let keys = keySets.get(name);
    if (!keys) {
      if (!metadata.jwks_uri) throw authErrors.unexpected();
      keys = jose.createRemoteJWKSet(new URL(metadata.jwks_uri));
      keySets.set(name, keys);
    }
    try {
      // The audience is checked below, to answer GoTrue's own message for it.
      const { payload, protectedHeader } = await jose.jwtVerify(idToken, keys, { issuer: metadata.issuer });
      return { claims: payload as ProviderClaims, alg: protectedHeader.alg };
    } catch {
      throw oauthGrantError('invalid request', 'Bad ID token');
    }
  }

  return {
    /** With `linkUserId` (link_identity), the identity joins that user instead, and the session is theirs. */
    async signIn(input: IdTokenGrantInput, meta: RequestMeta, linkUserId?: string): Promise<SessionJson> {
      const idToken = text(input.id_token);
      if (!idToken) throw oauthGrantError('invalid request', 'id_token required');
      const name = text(input.provider).toLowerCase();
      if (!name) throw oauthGrantError('invalid request', 'provider or client_id and issuer required');
      if (!registry.enabled(name)) refuseProvider(name);
      const { claims, alg } = await verify(name, idToken);
      const accessToken = text(input.access_token);
      if (accessToken && typeof claims.at_hash === 'string' && claims.at_hash !== accessTokenHash(accessToken, alg)) {
        throw oauthGrantError('invalid request', 'Bad ID token');
      }
      if (!claims.sub) throw oauthGrantError('invalid request', 'Missing sub claim in id_token');
      const audience = typeof claims.aud === 'string' ? [claims.aud] : Array.isArray(claims.aud) ? claims.aud : [];
      if (!audience.includes(registry.get(name).settings.clientId)) {
        throw oauthGrantError('invalid request', `Unacceptable audience in id_token: [${audience.join(' ')}]`);
      }
      const nonce = text(input.nonce);
      const tokenNonce = text(claims.nonce);
      if (Boolean(nonce) !== Boolean(tokenNonce)) {
        throw oauthGrantError('invalid request', 'Passed nonce and nonce in id_token should either both exist or not.');
      }
      // The app hands the provider sha256(nonce) and keeps the raw nonce: a token caught in transit is useless.
      if (nonce && createHash('sha256').update(nonce).digest('hex') !== tokenNonce) {
        throw oauthGrantError('invalid nonce', 'Nonces mismatch');
      }
      const user = await accountForProvider(sql, name, claims, { linkUserId: linkUserId ?? null, ...settings });
      return auth.signInAs(user, 'oauth', meta);
    },
  };
}

export type IdTokenGrant = ReturnType<typeof createIdTokenGrant>;
