// The OAuth 2.1 server's token endpoint (POST /oauth/token): an authenticated client spends an authorization code
// with its PKCE verifier, or rotates a refresh token of a session it opened. Tokens are this server's ordinary
// access and refresh tokens; the access token carries `client_id` and `scope`. Errors are OAuth's {error, ...}.
import type postgres from 'postgres';
import type { AuthService } from './auth-service.js';
import type { RequestMeta } from './auth-settings.js';
import { oauthGrantError } from './errors.js';
import { hashToken } from './opaque-token.js';
import type { OAuthClientRow } from './oauth-clients.js';
import { verifierMatches } from './pkce-flow.js';
import * as users from './user-repository.js';

export interface OAuthTokenResponse {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
  refresh_token: string;
}

export interface TokenParams {
  grant_type?: string;
  code?: string;
  redirect_uri?: string;
  code_verifier?: string;
  refresh_token?: string;
}

interface CodeRow {
  id: string;
  client_id: string;
  user_id: string | null;
  redirect_uri: string;
  scope: string;
  code_challenge: string;
  code_challenge_method: string;
  status: string;
  session_id: string | null;
  expired: boolean;
}

const tokenResponse = (session: { access_token: string; expires_in: number; refresh_token: string }) =>
  ({
    access_token: session.access_token,
    token_type: 'bearer',
    expires_in: session.expires_in,
    refresh_token: session.refresh_token,
  }) satisfies OAuthTokenResponse;

export function createOAuthTokenGrant(sql: postgres.Sql, service: AuthService) {
  /**
   * Spends a code. A wrong verifier or redirect URI leaves it unspent (GoTrue's rule; the verifier is not
   * guessable); a code presented again after it was spent ends the session it opened (RFC 6749 section 4.1.2).
   */
  async function exchangeCode(client: OAuthClientRow, params: TokenParams, meta: RequestMeta) {
    if (!params.code) throw oauthGrantError('invalid_request', 'code is required for authorization_code grant');
    const codeHash = hashToken(params.code);
    const outcome = await sql.begin(async (tx) => {
      const [row] = await tx<CodeRow[]>`
        select id, client_id, user_id, redirect_uri, scope, code_challenge, code_challenge_method, status, session_id,
          code_expires_at < now() as expired
        from auth.oauth_authorizations where code_hash = ${codeHash} for update`;
      if (row?.status === 'used') {
        if (row.session_id) await tx`delete from auth.sessions where id = ${row.session_id}`;
        await tx`update auth.oauth_authorizations set session_id = null where id = ${row.id}`;
        return 'reused' as const;
      }
      if (!row || row.status !== 'approved' || !row.user_id)
        throw oauthGrantError('invalid_grant', 'Invalid authorization code');
      if (row.expired) throw oauthGrantError('invalid_grant', 'Authorization code has expired');
      if (row.client_id !== client.id) {
        throw oauthGrantError('invalid_grant', 'Authorization code was not issued for this client');
      }
      if (params.redirect_uri && params.redirect_uri !== row.redirect_uri) {
        throw oauthGrantError('invalid_grant', 'Invalid redirect_uri');
      }
      if (!params.code_verifier) {
        throw oauthGrantError('invalid_grant', 'PKCE verification failed: code_verifier is required');
      }
      if (!verifierMatches(row, params.code_verifier)) {
        throw oauthGrantError('invalid_grant', 'PKCE verification failed: code challenge does not match');
      }
      const user = await users.findUserById(tx, row.user_id);
      if (!user) throw oauthGrantError('invalid_grant', 'User not found for authorization code');
      if (user.banned_until && user.banned_until > new Date()) throw oauthGrantError('access_denied', 'User is banned');
      const session = await service.signInForClient(user, { clientId: client.id, scopes: row.scope }, meta, tx);
      await tx`
        update auth.oauth_authorizations set status = 'used', session_id = ${session.session_id} where id = ${row.id}`;
      return tokenResponse(session);
    });
    if (outcome === 'reused') throw oauthGrantError('invalid_grant', 'Invalid authorization code');
    return outcome;
  }

  return {
    /** One token request of an authenticated client. */
    async grant(client: OAuthClientRow, params: TokenParams, meta: RequestMeta): Promise<OAuthTokenResponse> {
      const grantType = params.grant_type;
      if (!grantType) throw oauthGrantError('invalid_request', 'grant_type is required');
      if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
        throw oauthGrantError('unsupported_grant_type', `Unsupported grant type: ${grantType}`);
      }
      if (!client.grant_types.includes(grantType)) {
        throw oauthGrantError('unsupported_grant_type', `Client is not allowed to use grant type: ${grantType}`);
      }
      if (grantType === 'authorization_code') return exchangeCode(client, params, meta);
      if (!params.refresh_token) {
        throw oauthGrantError('invalid_request', 'refresh_token is required for refresh_token grant');
      }
      return tokenResponse(await service.refresh(params.refresh_token, client.id));
    },
  };
}
