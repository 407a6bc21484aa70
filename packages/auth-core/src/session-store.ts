// Sessions and refresh-token rotation. A refresh token is single use: rotating marks it revoked and stores
// the hash of its successor (derived from it, see opaque-token.ts). Reuse of a rotated token inside the reuse
// window returns the session's current token, so parallel tabs do not log users out; reuse after the window
// is treated as theft and ends the whole session.
import type postgres from 'postgres';
import { oauthGrantError } from './errors.js';
import { childToken, hashToken, randomToken } from './opaque-token.js';

interface AmrEntry {
  method: string;
  timestamp: number;
}

export interface SessionRow {
  id: string;
  user_id: string;
  aal: string;
  amr: AmrEntry[];
  created_at: Date;
  /** The OAuth client that opened the session (OAuth 2.1 server), and the scopes the user granted it. */
  oauth_client_id: string | null;
  scopes: string | null;
}

/** What an OAuth client's session carries besides the user (oauth-token-grant.ts). */
export interface OAuthSessionGrant {
  clientId: string;
  scopes: string;
}

const SESSION_COLUMNS = 'id, user_id, aal, amr, created_at, oauth_client_id, scopes';

interface IssuedRefresh {
  session: SessionRow;
  refreshToken: string;
}

type RefreshOutcome =
  | { kind: 'rotated'; session: SessionRow; refreshToken: string }
  | { kind: 'invalid'; reason: 'not_found' | 'revoked_reuse' | 'session_expired' };

// How far a reused token may be behind the current one and still be answered with it.
const MAX_CHAIN = 8;

export function createSessionStore(sql: postgres.Sql, options: { tokenKey: string; reuseSeconds: number }) {
  const { tokenKey, reuseSeconds } = options;

  /** A new session and its first refresh token; inside `within` when the caller's transaction must hold both. */
  async function createSession(
    userId: string,
    method: string,
    meta: { userAgent?: string; ip?: string },
    options: { oauth?: OAuthSessionGrant; within?: postgres.TransactionSql } = {},
  ): Promise<IssuedRefresh> {
    const refreshToken = randomToken();
    const amr: AmrEntry[] = [{ method, timestamp: Math.floor(Date.now() / 1000) }];
    const insert = async (tx: postgres.TransactionSql) => {
      const [row] = await tx<SessionRow[]>`
        insert into auth.sessions (user_id, amr, user_agent, ip, oauth_client_id, scopes)
        values (${userId}, ${tx.json(amr as unknown as postgres.JSONValue)}, ${meta.userAgent?.slice(0, 512) ?? null},
          ${validIp(meta.ip)}, ${options.oauth?.clientId ?? null}, ${options.oauth?.scopes ?? null})
        returning ${tx.unsafe(SESSION_COLUMNS)}`;
      await tx`insert into auth.refresh_tokens (session_id, token_hash) values (${row!.id}, ${hashToken(refreshToken)})`;
      return row!;
    };
    const session = options.within ? await insert(options.within) : await sql.begin(insert);
    return { session, refreshToken };
  }

  /** The user a refresh token belongs to (for the per-user refresh limit), without consuming it. */
  async function ownerOf(refreshToken: string): Promise<string | undefined> {
    const [row] = await sql<Array<{ user_id: string }>>`
      select s.user_id from auth.refresh_tokens rt join auth.sessions s on s.id = rt.session_id
      where rt.token_hash = ${hashToken(refreshToken)}`;
    return row?.user_id;
  }

  /**
   * Rotates a refresh token. `client` is the OAuth client that authenticated (null: the ordinary /token grant);
   * a session opened by an OAuth client is refreshed only by it, and the mismatch rolls the rotation back.
   */
  async function refresh(refreshToken: string, client: string | null = null): Promise<RefreshOutcome> {
    const checkClient = (session: SessionRow) => {
      if (session.oauth_client_id === client) return;
      throw session.oauth_client_id
        ? oauthGrantError(
            'invalid_client',
            client
              ? "Client does not match the session's OAuth client"
              : 'Client authentication required for OAuth session',
          )
        : oauthGrantError('invalid_client', 'Client authentication not allowed for non-OAuth session');
    };
    return sql.begin(async (tx) => {
      // The row lock serialises parallel refreshes of one token: the loser waits for the winner's commit,
      // then finds the token revoked and its successor stored.
      const [rotated] = await tx<Array<{ session_id: string }>>`
        update auth.refresh_tokens set revoked_at = now()
        where token_hash = ${hashToken(refreshToken)} and revoked_at is null
        returning session_id`;
      if (rotated) {
        const session = await liveSession(tx, rotated.session_id);
        if (!session) return { kind: 'invalid', reason: 'session_expired' } as const;
        checkClient(session);
        const next = childToken(tokenKey, refreshToken);
        await tx`insert into auth.refresh_tokens (session_id, token_hash) values (${session.id}, ${hashToken(next)})`;
        await tx`update auth.sessions set refreshed_at = now(), updated_at = now() where id = ${session.id}`;
        return { kind: 'rotated', session, refreshToken: next } as const;
      }
      const [used] = await tx<Array<{ session_id: string; within_window: boolean }>>`
        select session_id, revoked_at > now() - make_interval(secs => ${reuseSeconds}) as within_window
        from auth.refresh_tokens where token_hash = ${hashToken(refreshToken)}`;
      if (!used) return { kind: 'invalid', reason: 'not_found' } as const;
      if (!used.within_window) {
        await tx`delete from auth.sessions where id = ${used.session_id}`;
        return { kind: 'invalid', reason: 'revoked_reuse' } as const;
      }
      // Walk the successors to the session's current token.
      let token = refreshToken;
      for (let i = 0; i < MAX_CHAIN; i++) {
        token = childToken(tokenKey, token);
        const [row] = await tx<Array<{ revoked_at: Date | null }>>`
          select revoked_at from auth.refresh_tokens where token_hash = ${hashToken(token)}
            and session_id = ${used.session_id}`;
        if (!row) break;
        if (row.revoked_at === null) {
          const session = await liveSession(tx, used.session_id);
          if (!session) break;
          checkClient(session);
          return { kind: 'rotated', session, refreshToken: token } as const;
        }
      }
      return { kind: 'invalid', reason: 'not_found' } as const;
    });
  }

  async function liveSession(tx: postgres.TransactionSql, id: string): Promise<SessionRow | undefined> {
    const [row] = await tx<SessionRow[]>`
      select s.id, s.user_id, s.aal, s.amr, s.created_at, s.oauth_client_id, s.scopes from auth.sessions s join auth.users u on u.id = s.user_id
      where s.id = ${id} and (s.not_after is null or s.not_after > now()) and u.deleted_at is null
        and (u.banned_until is null or u.banned_until < now())`;
    return row;
  }

  async function logout(
    userId: string,
    sessionId: string | undefined,
    scope: 'global' | 'local' | 'others',
  ): Promise<void> {
    if (scope === 'local') {
      if (sessionId) await sql`delete from auth.sessions where id = ${sessionId} and user_id = ${userId}`;
    } else if (scope === 'others') {
      await sql`delete from auth.sessions where user_id = ${userId} and id is distinct from ${sessionId ?? null}::uuid`;
    } else {
      await sql`delete from auth.sessions where user_id = ${userId}`;
    }
  }

  /**
   * A further refresh token for a live session whose level changed (a second factor verified): the session's
   * aal and amr travel with every later refresh. Earlier tokens stay valid, so a parallel tab is not signed out.
   */
  async function addRefreshToken(sessionId: string): Promise<IssuedRefresh | undefined> {
    return sql.begin(async (tx) => {
      const session = await liveSession(tx, sessionId);
      if (!session) return undefined;
      const refreshToken = randomToken();
      await tx`insert into auth.refresh_tokens (session_id, token_hash) values (${session.id}, ${hashToken(refreshToken)})`;
      return { session, refreshToken };
    });
  }

  return { createSession, ownerOf, refresh, logout, addRefreshToken };
}

export type SessionStore = ReturnType<typeof createSessionStore>;

/** An address PostgreSQL's inet accepts, or null (unknown or unspecified). */
export function validIp(ip: string | undefined): string | null {
  return ip && /^[0-9a-fA-F:.]+$/.test(ip) && ip !== '0.0.0.0' ? ip : null;
}
