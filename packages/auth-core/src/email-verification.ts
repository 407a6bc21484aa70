// Spending what an e-mail carried: a link token or six-digit code confirms the address (or applies an e-mail
// change) and starts a session; in a PKCE flow it yields an auth code, later exchanged with its verifier.
import type postgres from 'postgres';
import type { RequestMeta } from './auth-settings.js';
import { authErrors } from './errors.js';
import {
  consumeOneTimeCode,
  consumeOneTimeToken,
  type ConsumedToken,
  type OneTimeTokenType,
} from './one-time-tokens.js';
import { consumeAuthCode, issueAuthCode } from './pkce-flow.js';
import type { SessionIssuer } from './session-issuer.js';
import { uniqueToEmailExists } from './sqlstate.js';
import * as users from './user-repository.js';
import type { SessionJson } from './user-view.js';

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

export function createEmailVerification(sql: postgres.Sql, issuer: SessionIssuer) {
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
    /** Consumes an e-mail link token or code and starts a session (POST /verify; also a PKCE flow's token). */
    async verify(
      type: string,
      token: unknown,
      meta: RequestMeta,
      email?: unknown,
    ): Promise<SessionJson & { type: VerifyType }> {
      const { user, consumed } = await consumeAndConfirm(type, token, email);
      if (consumed.flowStateId) await sql`delete from auth.flow_state where id = ${consumed.flowStateId}`;
      const session = await issuer.startSession(user, AMR_METHOD[consumed.type], meta);
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
      const session = await issuer.startSession(user, AMR_METHOD[consumed.type], meta);
      return { ...session, type: type as VerifyType };
    },

    /** POST /token?grant_type=pkce (exchangeCodeForSession): the auth code and its verifier for a session. */
    async exchangeAuthCode(authCode: unknown, codeVerifier: unknown, meta: RequestMeta): Promise<SessionJson> {
      const flow = await consumeAuthCode(sql, authCode, codeVerifier);
      const user = await users.findUserById(sql, flow.userId);
      if (!user) throw authErrors.flowStateNotFound();
      if (user.banned_until && user.banned_until > new Date()) throw authErrors.userBanned();
      const method = AMR_METHOD[flow.authenticationMethod as OneTimeTokenType] ?? flow.authenticationMethod;
      return issuer.startSession(user, method, meta);
    },
  };
}
