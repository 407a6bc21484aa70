// The auth flows behind /auth/v1: sign-up, password sign-in, refresh, logout, recovery, the current user; e-mail
// links (email-links.ts, email-verification.ts) and session responses (session-issuer.ts) are composed in here.
// Routes validate HTTP input and call one function here; errors are AuthError.
import type postgres from 'postgres';
import type { Claims, TokenSigner } from './jwt.js';
import { authErrors } from './errors.js';
import { isObject, subject, validEmail } from './auth-input.js';
import type { AuthSettings, RequestMeta } from './auth-settings.js';
import { createBackgroundTasks } from './background-tasks.js';
import { createEmailLinks } from './email-links.js';
import { createEmailVerification } from './email-verification.js';
import { hashPassword, verifyPassword } from './password-hasher.js';
import { checkPassword } from './password-policy.js';
import { createSessionIssuer } from './session-issuer.js';
import { createSessionStore, type OAuthSessionGrant } from './session-store.js';
import type { PkceChallenge } from './pkce-flow.js';
import { uniqueToEmailExists } from './sqlstate.js';
import * as users from './user-repository.js';
import { lookAlikeUser, userJson, type SessionJson, type UserJson } from './user-view.js';
import type { Mailer } from './mailer.js';

export function createAuthService(
  sql: postgres.Sql,
  signer: TokenSigner,
  mailer: Mailer,
  settings: AuthSettings,
  log: (msg: string, fields: Record<string, unknown>) => void = () => {},
) {
  const sessions = createSessionStore(sql, { tokenKey: settings.tokenKey, reuseSeconds: settings.refreshReuseSeconds });
  const issuer = `${settings.publicUrl}/auth/v1`;
  const tasks = createBackgroundTasks(log);
  const background = tasks.run;
  const sessionIssuer = createSessionIssuer(sql, signer, sessions, settings, issuer);
  const { sessionResponse, startSession } = sessionIssuer;
  const { redirectTarget, linkUrl, mailOneTime } = createEmailLinks(sql, mailer, settings);
  const verification = createEmailVerification(sql, sessionIssuer);

  return {
    issuer,
    jwks: () => signer.jwks(),
    drain: tasks.drain,
    linkUrl,
    redirectTarget,
    background,
    mailOneTime,
    verify: verification.verify,
    verifyLink: verification.verifyLink,
    exchangeAuthCode: verification.exchangeAuthCode,

    async signUp(
      input: { email: unknown; password: unknown; data?: unknown; redirectTo?: string; pkce?: PkceChallenge },
      meta: RequestMeta,
    ): Promise<{ user: UserJson; session?: SessionJson }> {
      if (settings.disableSignup) throw authErrors.signupDisabled();
      const email = validEmail(input.email);
      if (typeof input.password !== 'string') throw authErrors.validation('Signup requires a valid password');
      checkPassword(settings.passwordPolicy, input.password, email);
      const metadata = isObject(input.data) ? input.data : {};
      // Hash before looking the address up, so known and unknown addresses cost the same.
      const passwordHash = await hashPassword(input.password);
      const created = await users.insertUser(sql, {
        email,
        passwordHash,
        confirmed: settings.autoconfirm,
        userMetadata: metadata,
      });
      if (!created) {
        if (settings.autoconfirm) throw authErrors.userAlreadyExists();
        // With confirmation on, GoTrue's answer for a taken address: a look-alike user and no e-mail.
        return { user: lookAlikeUser({ email, phone: '' }, 'email', metadata) };
      }
      if (settings.autoconfirm) {
        const session = await startSession(created, 'password', meta);
        return { user: session.user, session };
      }
      const redirect = redirectTarget(input.redirectTo);
      background('signup mail', () =>
        mailOneTime('signup', 'confirmation', created.id, email, redirect, '', input.pkce),
      );
      return { user: { ...userJson(created), confirmation_sent_at: new Date().toISOString() } };
    },

    /** POST /signup without credentials: a user with no address, signed in at once (amr `anonymous`). */
    async signInAnonymously(data: unknown, meta: RequestMeta): Promise<SessionJson> {
      if (settings.disableSignup) throw authErrors.signupDisabled();
      if (!settings.anonymousSignIns) throw authErrors.anonymousDisabled();
      const user = await users.insertAnonymousUser(sql, isObject(data) ? data : {});
      return startSession(user, 'anonymous', meta);
    },

    async signInWithPassword(input: { email: unknown; password: unknown }, meta: RequestMeta): Promise<SessionJson> {
      if (typeof input.email !== 'string' || typeof input.password !== 'string' || !input.email || !input.password) {
        throw authErrors.invalidCredentials();
      }
      const user = await users.findUserByEmail(sql, input.email);
      // One hash verification whether or not the user exists (verifyPassword does a dummy one).
      const result = await verifyPassword(input.password, user?.encrypted_password);
      if (!user || !result.ok) throw authErrors.invalidCredentials();
      if (user.banned_until && user.banned_until > new Date()) throw authErrors.userBanned();
      if (!user.email_confirmed_at && !settings.autoconfirm) throw authErrors.emailNotConfirmed();
      if (result.needsRehash) {
        await users.updateUser(sql, user.id, { passwordHash: await hashPassword(input.password) });
      }
      return startSession(user, 'password', meta);
    },

    refreshTokenOwner: (refreshToken: string) => sessions.ownerOf(refreshToken),

    /** A session for a user another flow authenticated (OAuth callback, ID token grant); `method` is its amr. */
    signInAs: (user: users.UserRow, method: string, meta: RequestMeta) => startSession(user, method, meta),

    /** A session an OAuth client opens with an authorization code, inside the transaction that spends the code. */
    async signInForClient(
      user: users.UserRow,
      grant: OAuthSessionGrant,
      meta: RequestMeta,
      within: postgres.TransactionSql,
    ): Promise<SessionJson & { session_id: string }> {
      const method = 'oauth_provider/authorization_code';
      const { session, refreshToken } = await sessions.createSession(user.id, method, meta, { oauth: grant, within });
      return { ...(await sessionResponse(user, session, refreshToken)), session_id: session.id };
    },

    /** A new session response for an existing session, after its assurance level changed (mfa-service.ts). */
    async reissue(userId: string, sessionId: string): Promise<SessionJson> {
      const issued = await sessions.addRefreshToken(sessionId);
      const user = await users.findUserById(sql, userId);
      if (!issued || !user) throw authErrors.sessionNotFound();
      return sessionResponse(user, issued.session, issued.refreshToken);
    },

    /** Rotates a refresh token; `client` is the OAuth client that authenticated at /oauth/token, if any. */
    async refresh(refreshToken: unknown, client: string | null = null): Promise<SessionJson> {
      if (typeof refreshToken !== 'string' || refreshToken.length < 16 || refreshToken.length > 256) {
        throw authErrors.invalidRefreshToken();
      }
      const outcome = await sessions.refresh(refreshToken, client);
      if (outcome.kind === 'invalid') {
        throw authErrors.invalidRefreshToken(
          outcome.reason === 'revoked_reuse'
            ? 'Invalid Refresh Token: Already Used'
            : 'Invalid Refresh Token: Refresh Token Not Found',
        );
      }
      const user = await users.findUserById(sql, outcome.session.user_id);
      if (!user) throw authErrors.invalidRefreshToken();
      return sessionResponse(user, outcome.session, outcome.refreshToken);
    },

    async logout(claims: Claims, scope: 'global' | 'local' | 'others'): Promise<void> {
      const { userId, sessionId } = subject(claims);
      await sessions.logout(userId, sessionId, scope);
    },

    /** Always answers the same way: the token and the e-mail are made in the background, if the user exists. */
    async recover(emailInput: unknown, redirectTo: string | undefined, pkce?: PkceChallenge): Promise<void> {
      const email = validEmail(emailInput);
      const redirect = redirectTarget(redirectTo);
      background('recovery mail', async () => {
        const user = await users.findUserByEmail(sql, email);
        if (!user) return;
        await mailOneTime('recovery', 'recovery', user.id, email, redirect, '', pkce);
      });
    },

    async getUser(claims: Claims): Promise<UserJson> {
      return userJson(await currentUser(claims));
    },

    async updateUser(
      claims: Claims,
      input: { email?: unknown; password?: unknown; data?: unknown },
      redirectTo?: string,
      pkce?: PkceChallenge,
    ): Promise<UserJson> {
      const user = await currentUser(claims);
      const { sessionId } = subject(claims);
      const changes: users.UserChanges = {};
      if (input.data !== undefined) {
        if (!isObject(input.data)) throw authErrors.validation('data must be an object');
        changes.userMetadata = input.data;
      }
      if (input.password !== undefined) {
        if (typeof input.password !== 'string') throw authErrors.validation('password must be a string');
        if (user.is_anonymous && !user.email && !input.email) throw authErrors.anonymousPasswordWithoutEmail();
        checkPassword(settings.passwordPolicy, input.password, user.email);
        if (user.encrypted_password && (await verifyPassword(input.password, user.encrypted_password)).ok) {
          throw authErrors.samePassword();
        }
        changes.passwordHash = await hashPassword(input.password);
      }
      let pendingEmail: string | undefined;
      if (input.email !== undefined && input.email !== user.email) {
        const email = validEmail(input.email);
        if (email !== user.email) {
          const taken = await users.findUserByEmail(sql, email);
          if (taken) throw authErrors.emailExists();
          if (settings.autoconfirm) changes.email = email;
          else pendingEmail = email;
        }
      }
      const updated = await users.updateUser(sql, user.id, changes).catch(uniqueToEmailExists);
      if (!updated) throw authErrors.userNotFound();
      // A new password ends every other session: whoever knew the old one is signed out.
      if (changes.passwordHash) await sessions.logout(user.id, sessionId, 'others');
      if (pendingEmail) {
        const to = pendingEmail;
        const redirect = redirectTarget(redirectTo);
        background('email change mail', () =>
          mailOneTime('email_change', 'email_change', user.id, to, redirect, to, pkce),
        );
        return { ...userJson(updated), new_email: to, email_change_sent_at: new Date().toISOString() };
      }
      return userJson(updated);
    },
  };

  async function currentUser(claims: Claims): Promise<users.UserRow> {
    const { userId, sessionId } = subject(claims);
    const { user, sessionExists } = await users.findUserBySession(sql, userId, sessionId);
    if (!user) throw authErrors.userNotFound();
    if (!sessionExists) throw authErrors.sessionNotFound();
    return user;
  }
}

export type AuthService = ReturnType<typeof createAuthService>;
