// Turns a user and a session into the session response of GoTrue: the signed access token with its claims, the
// refresh token and the user. Every flow that signs someone in ends here.
import type postgres from 'postgres';
import type { Claims, TokenSigner } from './jwt.js';
import type { AuthSettings, RequestMeta } from './auth-settings.js';
import type { SessionRow, SessionStore } from './session-store.js';
import * as users from './user-repository.js';
import { userJson, type SessionJson } from './user-view.js';

export function createSessionIssuer(
  sql: postgres.Sql,
  signer: TokenSigner,
  sessions: SessionStore,
  settings: AuthSettings,
  issuer: string,
) {
  async function sessionResponse(user: users.UserRow, session: SessionRow, refreshToken: string): Promise<SessionJson> {
    const iat = Math.floor(Date.now() / 1000);
    const exp = iat + settings.accessTokenSeconds;
    const claims: Claims = {
      aud: user.aud,
      exp,
      iat,
      iss: issuer,
      sub: user.id,
      email: user.email ?? '',
      phone: user.phone ?? '',
      app_metadata: user.raw_app_meta_data,
      user_metadata: user.raw_user_meta_data,
      role: user.role,
      aal: session.aal,
      amr: session.amr,
      session_id: session.id,
      is_anonymous: user.is_anonymous,
      // A session an OAuth client opened (GoTrue's claims): whose token this is, and what the user granted it.
      ...(session.oauth_client_id ? { client_id: session.oauth_client_id, scope: session.scopes ?? '' } : {}),
    };
    return {
      access_token: await signer.sign(claims),
      token_type: 'bearer',
      expires_in: settings.accessTokenSeconds,
      expires_at: exp,
      refresh_token: refreshToken,
      user: userJson(user),
    };
  }

  /** A new session for the user, signed in by `method` (its amr), and the user's last sign-in recorded. */
  async function startSession(user: users.UserRow, method: string, meta: RequestMeta): Promise<SessionJson> {
    const { session, refreshToken } = await sessions.createSession(user.id, method, meta);
    const signedIn = (await users.updateUser(sql, user.id, { lastSignIn: true })) ?? user;
    return sessionResponse(signedIn, session, refreshToken);
  }

  return { sessionResponse, startSession };
}

export type SessionIssuer = ReturnType<typeof createSessionIssuer>;
