// The auth flows behind /auth/v1: sign-up, password sign-in, refresh, logout, recovery, e-mail links,
// the current user. Routes validate HTTP input and call one function here; errors are AuthError.
import type postgres from 'postgres';
import type { Claims, TokenSigner } from './jwt.js';
import { authErrors } from './errors.js';
import { hashPassword, verifyPassword } from './password-hasher.js';
import { checkPassword, type PasswordPolicy } from './password-policy.js';
import { createSessionStore, type OAuthSessionGrant, type SessionRow } from './session-store.js';
import {
  consumeOneTimeCode,
  consumeOneTimeToken,
  issueOneTimeToken,
  type ConsumedToken,
  type OneTimeSecret,
  type OneTimeTokenType,
} from './one-time-tokens.js';
import { consumeAuthCode, issueAuthCode, type PkceChallenge } from './pkce-flow.js';
import * as users from './user-repository.js';
import { lookAlikeUser, userJson, type SessionJson, type UserJson } from './user-view.js';
import type { Mailer } from './mailer.js';
import { linkMail, type LinkMailKind } from './mail-templates.js';

export interface AuthSettings {
  /** {base_url}: links in e-mails point at {publicUrl}/auth/v1/verify; iss = {publicUrl}/auth/v1. */
  publicUrl: string;
  /** Where e-mail links land when no allowed redirect_to is given. */
  appUrl: string;
  /** Further redirect targets: URL prefixes (https://app.example.com/) or origins. */
  redirectAllowList: readonly string[];
  autoconfirm: boolean;
  disableSignup: boolean;
  /** signInAnonymously (AUTH_ANONYMOUS_SIGN_INS). */
  anonymousSignIns: boolean;
  accessTokenSeconds: number;
  oneTimeTokenSeconds: number;
  refreshReuseSeconds: number;
  passwordPolicy: PasswordPolicy;
  /** Key for deriving refresh-token successors (the JWT secret serves). */
  tokenKey: string;
}

export interface RequestMeta {
  ip?: string;
  userAgent?: string;
}

export type VerifyType = 'signup' | 'recovery' | 'invite' | 'magiclink' | 'email_change' | 'email';

const VERIFY_TYPES: Record<VerifyType, OneTimeTokenType[]> = {
  signup: ['confirmation'],
  email: ['confirmation', 'magiclink'],
  recovery: ['recovery'],
  invite: ['invite'],
  magiclink: ['magiclink'],
  email_change: ['email_change'],
};

const AMR_METHOD: Record<OneTimeTokenType, string> = {
  confirmation: 'otp',
  magiclink: 'otp',
  recovery: 'recovery',
  invite: 'invite',
  email_change: 'email_change',
};

/**
 * GoTrue's format check (checkmail's pattern): a dot-atom local part, and host labels of letters, digits and inner
 * hyphens. Address groups, display names, quoted parts and blanks (`xx:;x@x.x`, `A <a@b.c>`, ` a@b.c`) are refused.
 */
const EMAIL_RE =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

/** The e-mail check of every entry point: sign-up, recovery, one-time codes, admin create, update, generate_link. */
export function validEmail(email: unknown): string {
  if (typeof email !== 'string' || email.length > 255 || !EMAIL_RE.test(email)) throw authErrors.emailInvalid();
  return users.normalizeEmail(email);
}

export function createAuthService(
  sql: postgres.Sql,
  signer: TokenSigner,
  mailer: Mailer,
  settings: AuthSettings,
  log: (msg: string, fields: Record<string, unknown>) => void = () => {},
) {
  const sessions = createSessionStore(sql, { tokenKey: settings.tokenKey, reuseSeconds: settings.refreshReuseSeconds });
  const issuer = `${settings.publicUrl}/auth/v1`;
  const pending = new Set<Promise<unknown>>();

  /** Runs work after the response (mail sending), so known and unknown addresses answer alike. */
  function background(what: string, work: () => Promise<unknown>): void {
    const p = work()
      .catch((error) => log('background task failed', { task: what, error: String(error) }))
      .finally(() => pending.delete(p));
    pending.add(p);
  }

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

  async function startSession(user: users.UserRow, method: string, meta: RequestMeta): Promise<SessionJson> {
    const { session, refreshToken } = await sessions.createSession(user.id, method, meta);
    const signedIn = (await users.updateUser(sql, user.id, { lastSignIn: true })) ?? user;
    return sessionResponse(signedIn, session, refreshToken);
  }

  function redirectTarget(requested: string | undefined): string {
    if (requested) {
      try {
        const url = new URL(requested);
        const allowed = [settings.appUrl, settings.publicUrl, ...settings.redirectAllowList].some((entry) => {
          const e = new URL(entry);
          return e.pathname === '/' ? e.origin === url.origin : url.href.startsWith(e.href);
        });
        if (allowed) return url.href;
      } catch {
        /* not a URL: use the default */
      }
    }
    return settings.appUrl;
  }

  /** The e-mail link: GET {publicUrl}/auth/v1/verify, the type being the VerifyType the token is verified as. */
  function linkUrl(type: string, token: string, redirectTo: string): string {
    return (
      `${settings.publicUrl}/auth/v1/verify?token=${encodeURIComponent(token)}&type=${encodeURIComponent(type)}` +
      `&redirect_to=${encodeURIComponent(redirectTo)}`
    );
  }

  async function sendLink(kind: LinkMailKind, to: string, secret: OneTimeSecret, redirectTo: string): Promise<void> {
    // Every LinkMailKind is also the VerifyType its link is verified as.
    const link = linkUrl(kind, secret.token, redirectTo);
    await mailer.send(linkMail(kind, to, link, settings.oneTimeTokenSeconds, secret.code));
  }

  /** Checks and spends a link token or six-digit code, and confirms the address (or applies the e-mail change). */
  async function consumeAndConfirm(
    type: string,
    token: unknown,
    email: unknown,
  ): Promise<{ user: users.UserRow; consumed: ConsumedToken }> {
    if (!(type in VERIFY_TYPES)) throw authErrors.validation('Verify requires a valid type');
    const forEmail = typeof email === 'string' && email ? users.normalizeEmail(email) : undefined;
    const types = VERIFY_TYPES[type as VerifyType];
    const isCode = typeof token === 'string' && /^\d{6}$/.test(token);
    if (isCode && !forEmail) throw authErrors.validation('Verify requires an email with a six-digit code');
    if (!isCode && (typeof token !== 'string' || token.length < 16 || token.length > 256)) {
      throw authErrors.otpExpired();
    }
    const consumed = isCode
      ? await consumeOneTimeCode(sql, forEmail!, token, types)
      : await consumeOneTimeToken(sql, token as string, types, forEmail);
    if (!consumed) throw authErrors.otpExpired();
    let user = await users.findUserById(sql, consumed.userId);
    if (!user) throw authErrors.otpExpired();
    user =
      consumed.type === 'email_change'
        ? await users
            .updateUser(sql, user.id, { email: consumed.relatesTo, confirmEmail: true })
            .catch(uniqueToEmailExists)
        : await users.updateUser(sql, user.id, { confirmEmail: true });
    if (!user) throw authErrors.otpExpired();
    return { user, consumed };
  }

  return {
    issuer,
    jwks: () => signer.jwks(),
    drain: async () => {
      await Promise.all([...pending]);
    },
    linkUrl,
    redirectTarget,
    background,
    /** Issues a token and code of `type` for the user and mails both (email-otp-service.ts, resend). */
    async mailOneTime(
      kind: LinkMailKind,
      type: OneTimeTokenType,
      userId: string,
      to: string,
      redirectTo: string,
      relatesTo = '',
      pkce?: PkceChallenge,
    ): Promise<void> {
      const secret = await issueOneTimeToken(sql, userId, type, settings.oneTimeTokenSeconds, relatesTo, pkce);
      await sendLink(kind, to, secret, redirectTo);
    },

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
      background('signup mail', async () => {
        const secret = await issueOneTimeToken(
          sql,
          created.id,
          'confirmation',
          settings.oneTimeTokenSeconds,
          '',
          input.pkce,
        );
        await sendLink('signup', email, secret, redirect);
      });
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
        const secret = await issueOneTimeToken(sql, user.id, 'recovery', settings.oneTimeTokenSeconds, '', pkce);
        await sendLink('recovery', email, secret, redirect);
      });
    },

    /** Consumes an e-mail link token or code and starts a session (POST /verify; also a PKCE flow's token). */
    async verify(
      type: string,
      token: unknown,
      meta: RequestMeta,
      email?: unknown,
    ): Promise<SessionJson & { type: VerifyType }> {
      const { user, consumed } = await consumeAndConfirm(type, token, email);
      if (consumed.flowStateId) await sql`delete from auth.flow_state where id = ${consumed.flowStateId}`;
      const session = await startSession(user, AMR_METHOD[consumed.type], meta);
      return { ...session, type: type as VerifyType };
    },

    /**
     * The e-mail link (GET /verify): a session for the implicit flow; in a PKCE flow the address is confirmed and
     * an auth code answered instead, for the redirect's `?code=`.
     */
    async verifyLink(
      type: string,
      token: unknown,
      meta: RequestMeta,
    ): Promise<(SessionJson & { type: VerifyType }) | { authCode: string }> {
      const { user, consumed } = await consumeAndConfirm(type, token, undefined);
      if (consumed.flowStateId) return { authCode: await issueAuthCode(sql, consumed.flowStateId, user.id) };
      const session = await startSession(user, AMR_METHOD[consumed.type], meta);
      return { ...session, type: type as VerifyType };
    },

    /** POST /token?grant_type=pkce (exchangeCodeForSession): the auth code and its verifier for a session. */
    async exchangeAuthCode(authCode: unknown, codeVerifier: unknown, meta: RequestMeta): Promise<SessionJson> {
      const flow = await consumeAuthCode(sql, authCode, codeVerifier);
      const user = await users.findUserById(sql, flow.userId);
      if (!user) throw authErrors.flowStateNotFound();
      if (user.banned_until && user.banned_until > new Date()) throw authErrors.userBanned();
      const method = AMR_METHOD[flow.authenticationMethod as OneTimeTokenType] ?? flow.authenticationMethod;
      return startSession(user, method, meta);
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
        background('email change mail', async () => {
          const secret = await issueOneTimeToken(sql, user.id, 'email_change', settings.oneTimeTokenSeconds, to, pkce);
          await sendLink('email_change', to, secret, redirect);
        });
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

/** The user and session of an access token; API keys and other roles are not users. */
export function subject(claims: Claims | undefined): { userId: string; sessionId?: string } {
  if (!claims || typeof claims.sub !== 'string' || claims.role === 'anon' || claims.role === 'service_role') {
    throw authErrors.notAuthenticated();
  }
  if (!/^[0-9a-f-]{36}$/i.test(claims.sub)) throw authErrors.invalidToken('invalid claim: sub claim must be a UUID');
  const sessionId =
    typeof claims.session_id === 'string' && /^[0-9a-f-]{36}$/i.test(claims.session_id) ? claims.session_id : undefined;
  return { userId: claims.sub, sessionId };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function uniqueToEmailExists(error: unknown): never {
  if ((error as { code?: string }).code === '23505') throw authErrors.emailExists();
  throw error;
}
