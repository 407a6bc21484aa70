// The OAuth 2.1 server's authorization requests (GoTrue's /oauth/authorize and /oauth/authorizations): a request
// checked against the registered client and stored pending, the consent page's signed-in user bound to it, then
// approved (a single-use code, short-lived, only its hash kept) or denied; and the consents users gave (grants).
import type postgres from 'postgres';
import { authErrors } from './errors.js';
import { hashToken, randomToken } from './opaque-token.js';
import { isUuid } from './auth-input.js';
import { parseScopes } from './oauth-client-params.js';
import type { OAuthClientRegistry, OAuthClientRow } from './oauth-clients.js';

export interface OAuthServerSettings {
  /** The consent page: {appUrl}{authorizationPath}?authorization_id=... (GoTrue's SITE_URL + authorization path). */
  appUrl: string;
  authorizationPath: string;
  /** How long a request may wait for the user's consent (GoTrue's 10 minutes). */
  authorizationSeconds: number;
  /** How long an issued code may wait for the token request. */
  codeSeconds: number;
  /** The scope of a request that names none (GoTrue's default: email). */
  defaultScope: string;
  /** Origins a consent page may call from (the Origin header, when a browser sends one). */
  allowedOrigins: readonly string[];
}

interface AuthorizationRow {
  id: string;
  authorization_id: string;
  client_id: string;
  user_id: string | null;
  redirect_uri: string;
  scope: string;
  state: string | null;
  status: 'pending' | 'approved' | 'denied' | 'used';
  expired: boolean;
}

export interface AuthorizationDetails {
  authorization_id: string;
  redirect_uri: string;
  client: { id: string; name: string; uri: string; logo_uri: string };
  user: { id: string; email: string };
  scope: string;
}

export interface OAuthGrant {
  client: AuthorizationDetails['client'];
  scopes: string[];
  granted_at: string;
}

const CHALLENGE_RE = /^[A-Za-z0-9._~-]{43,128}$/;

/** An error the client learns through its redirect URI (the client and the URI are known good by then). */
class RedirectedError extends Error {
  constructor(
    readonly error: string,
    message: string,
  ) {
    super(message);
  }
}

function withParams(uri: string, params: Record<string, string | null | undefined>): string {
  const url = new URL(uri);
  for (const [name, value] of Object.entries(params)) if (value) url.searchParams.set(name, value);
  return url.href;
}

const clientDetails = (client: Pick<OAuthClientRow, 'id' | 'client_name' | 'client_uri' | 'logo_uri'>) => ({
  id: client.id,
  name: client.client_name,
  uri: client.client_uri ?? '',
  logo_uri: client.logo_uri ?? '',
});

export function createOAuthAuthorizations(
  sql: postgres.Sql,
  clients: OAuthClientRegistry,
  settings: OAuthServerSettings,
) {
  const consentPage = `${settings.appUrl.replace(/\/+$/, '')}/${settings.authorizationPath.replace(/^\/+/, '')}`;
  const allowedOrigins = new Set(settings.allowedOrigins.filter((o) => URL.canParse(o)).map((o) => new URL(o).origin));

  /** GoTrue's check on the consent endpoints: a browser's Origin must be one of ours (no Origin: not a browser). */
  function checkOrigin(origin: string | undefined): void {
    if (origin === undefined) return;
    if (!URL.canParse(origin) || !allowedOrigins.has(new URL(origin).origin)) {
      throw authErrors.validation('unauthorized request origin');
    }
  }

  function checkRequest(client: OAuthClientRow, query: Record<string, string | undefined>) {
    const responseType = query.response_type || 'code';
    if (responseType !== 'code')
      throw new RedirectedError('unsupported_response_type', 'only response_type=code is supported');
    if (!client.grant_types.includes('authorization_code')) {
      throw new RedirectedError('unauthorized_client', 'client is not allowed to use the authorization_code grant');
    }
    let scopes: string[];
    try {
      scopes = parseScopes(query.scope || settings.defaultScope);
    } catch (error) {
      throw new RedirectedError('invalid_scope', (error as Error).message);
    }
    if (scopes.length === 0) throw new RedirectedError('invalid_scope', 'scope parameter cannot be empty');
    const allowed = client.scope?.split(' ');
    const outside = allowed && scopes.find((s) => !allowed.includes(s));
    if (outside) throw new RedirectedError('invalid_scope', `scope not allowed for this client: ${outside}`);
    const challenge = query.code_challenge;
    const method = query.code_challenge_method?.toLowerCase();
    if (!challenge || !method) {
      throw new RedirectedError('invalid_request', 'PKCE flow requires both code_challenge and code_challenge_method');
    }
    if (method !== 's256' && method !== 'plain') {
      throw new RedirectedError('invalid_request', "code_challenge_method must be 'S256' or 'plain'");
    }
    // OAuth 2.1: a client that cannot keep a secret must not send its verifier's challenge in the clear.
    if (client.client_type === 'public' && method !== 's256') {
      throw new RedirectedError('invalid_request', "public clients must use code_challenge_method 'S256'");
    }
    if (!CHALLENGE_RE.test(challenge)) {
      throw new RedirectedError('invalid_request', 'code_challenge must be between 43 and 128 characters');
    }
    if ((query.state?.length ?? 0) > 2048) throw new RedirectedError('invalid_request', 'state is too long');
    return { scope: scopes.join(' '), challenge, method };
  }

  /** Issues the code of an approved request: only its hash is stored, good once, for `codeSeconds`. */
  async function approve(tx: postgres.TransactionSql, row: AuthorizationRow): Promise<string> {
    const code = randomToken();
    await tx`
      update auth.oauth_authorizations set status = 'approved', code_hash = ${hashToken(code)},
        code_expires_at = now() + make_interval(secs => ${settings.codeSeconds})
      where id = ${row.id}`;
    return withParams(row.redirect_uri, { code, state: row.state });
  }

  /** The pending request of a consent call, locked; GoTrue's 404 when missing, expired or another user's. */
  async function lockPending(
    tx: postgres.TransactionSql,
    authorizationId: string,
    notPending: string,
  ): Promise<AuthorizationRow> {
    const [row] = await tx<AuthorizationRow[]>`
      select id, authorization_id, client_id, user_id, redirect_uri, scope, state, status, expires_at < now() as expired
      from auth.oauth_authorizations where authorization_id = ${authorizationId} for update`;
    if (!row || (row.status === 'pending' && row.expired)) throw authErrors.oauthAuthorizationNotFound();
    if (row.status !== 'pending') throw authErrors.validation(notPending);
    return row;
  }

  return {
    checkOrigin,

    /**
     * GET /oauth/authorize: the URL to send the browser to. Without a known client and one of its redirect URIs
     * exactly, the error is answered here (never redirected to an unchecked URI); later errors go to the client.
     */
    async authorize(query: Record<string, string | undefined>): Promise<string> {
      if (!query.client_id) throw authErrors.validation('client_id is required');
      if (!query.redirect_uri) throw authErrors.validation('redirect_uri is required');
      if (!isUuid(query.client_id)) throw authErrors.oauthClientNotFound(400, 'invalid client_id format');
      const client = await clients.find(query.client_id);
      if (!client) throw authErrors.oauthClientNotFound(400, 'invalid client_id');
      if (!client.redirect_uris.includes(query.redirect_uri)) throw authErrors.validation('invalid redirect_uri');
      let request: ReturnType<typeof checkRequest>;
      try {
        request = checkRequest(client, query);
      } catch (error) {
        if (!(error instanceof RedirectedError)) throw error;
        return withParams(query.redirect_uri, {
          error: error.error,
          error_description: error.message,
          state: query.state,
        });
      }
      const authorizationId = randomToken();
      await sql.begin(async (tx) => {
        await tx`delete from auth.oauth_authorizations where created_at < now() - interval '1 day'`;
        await tx`
          insert into auth.oauth_authorizations (authorization_id, client_id, redirect_uri, scope, state,
            code_challenge, code_challenge_method, expires_at)
          values (${authorizationId}, ${client.id}, ${query.redirect_uri!}, ${request.scope}, ${query.state || null},
            ${request.challenge}, ${request.method}, now() + make_interval(secs => ${settings.authorizationSeconds}))`;
      });
      return `${consentPage}?authorization_id=${encodeURIComponent(authorizationId)}`;
    },

    /**
     * GET /oauth/authorizations/{id} for the signed-in user: the first caller's request becomes theirs; when they
     * already consented to these scopes for this client the request is approved at once and the redirect answered.
     */
    async details(authorizationId: string, userId: string): Promise<AuthorizationDetails | { redirect_url: string }> {
      return sql.begin(async (tx) => {
        const row = await lockPending(tx, authorizationId, 'authorization request cannot be processed');
        if (row.user_id && row.user_id !== userId) throw authErrors.oauthAuthorizationNotFound();
        if (!row.user_id) {
          await tx`update auth.oauth_authorizations set user_id = ${userId} where id = ${row.id}`;
          const [consent] = await tx<Array<{ scopes: string }>>`
            select scopes from auth.oauth_consents where user_id = ${userId} and client_id = ${row.client_id}`;
          const granted = consent?.scopes.split(' ') ?? [];
          if (consent && row.scope.split(' ').every((s) => granted.includes(s))) {
            return { redirect_url: await approve(tx, row) };
          }
        }
        const [client] = await tx<OAuthClientRow[]>`
          select id, client_name, client_uri, logo_uri from auth.oauth_clients where id = ${row.client_id}`;
        const [user] = await tx<Array<{ email: string | null }>>`select email from auth.users where id = ${userId}`;
        if (!client || !user) throw authErrors.oauthAuthorizationNotFound();
        return {
          authorization_id: row.authorization_id,
          redirect_uri: row.redirect_uri,
          client: clientDetails(client),
          user: { id: userId, email: user.email ?? '' },
          scope: row.scope,
        };
      }) as Promise<AuthorizationDetails | { redirect_url: string }>;
    },

    /** POST /oauth/authorizations/{id}/consent: approve (a code, and the consent remembered) or deny. */
    async consent(authorizationId: string, userId: string, action: unknown): Promise<{ redirect_url: string }> {
      if (action !== 'approve' && action !== 'deny') throw authErrors.validation("action must be 'approve' or 'deny'");
      return sql.begin(async (tx) => {
        const row = await lockPending(tx, authorizationId, 'authorization request is no longer pending');
        if (row.user_id !== userId) throw authErrors.oauthAuthorizationNotFound();
        if (action === 'deny') {
          await tx`update auth.oauth_authorizations set status = 'denied' where id = ${row.id}`;
          return {
            redirect_url: withParams(row.redirect_uri, {
              error: 'access_denied',
              error_description: 'User denied the request',
              state: row.state,
            }),
          };
        }
        await tx`
          insert into auth.oauth_consents (user_id, client_id, scopes) values (${userId}, ${row.client_id}, ${row.scope})
          on conflict (user_id, client_id) do update set granted_at = now(), scopes = (
            select string_agg(distinct s, ' ') from unnest(
              string_to_array(auth.oauth_consents.scopes, ' ') || string_to_array(excluded.scopes, ' ')) s)`;
        return { redirect_url: await approve(tx, row) };
      }) as Promise<{ redirect_url: string }>;
    },

    /** GET /user/oauth/grants: the clients the user consented to, with the scopes granted. */
    async listGrants(userId: string): Promise<OAuthGrant[]> {
      const rows = await sql<Array<OAuthClientRow & { scopes: string; granted_at: Date }>>`
        select c.id, c.client_name, c.client_uri, c.logo_uri, g.scopes, g.granted_at
        from auth.oauth_consents g join auth.oauth_clients c on c.id = g.client_id
        where g.user_id = ${userId} order by g.granted_at desc`;
      return rows.map((row) => ({
        client: clientDetails(row),
        scopes: row.scopes.split(' ').filter(Boolean),
        granted_at: row.granted_at.toISOString(),
      }));
    },

    /** DELETE /user/oauth/grants?client_id=: the consent goes, and with it every session that client holds. */
    async revokeGrant(userId: string, clientId: string | undefined): Promise<void> {
      if (!clientId) throw authErrors.validation('client_id query parameter is required');
      if (!isUuid(clientId)) throw authErrors.validation('invalid client_id format');
      await sql.begin(async (tx) => {
        const [consent] = await tx`
          delete from auth.oauth_consents where user_id = ${userId} and client_id = ${clientId} returning client_id`;
        if (!consent) throw authErrors.oauthConsentNotFound();
        await tx`delete from auth.sessions where user_id = ${userId} and oauth_client_id = ${clientId}`;
      });
    },
  };
}
