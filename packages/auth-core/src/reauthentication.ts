// GoTrue's reauthentication: GET /reauthenticate mails the signed-in user a six-digit nonce; with secure password
// change on (AUTH_SECURE_PASSWORD_CHANGE, GoTrue's GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION) a
// password change from a session older than 24 hours must carry it. Only its hash is stored; it works once.
import { randomInt } from 'node:crypto';
import type postgres from 'postgres';
import { AuthError, authErrors } from './errors.js';
import type { Mailer } from './mailer.js';
import { hashToken } from './opaque-token.js';

/** A session younger than this changes the password without a nonce (GoTrue's rule). */
const RECENT_SESSION_MS = 24 * 3600 * 1000;

const nonceHash = (userId: string, nonce: string) => hashToken(`reauthentication:${userId}:${nonce}`);

export function createReauthentication(
  sql: postgres.Sql,
  mailer: Mailer,
  settings: { securePasswordChange: boolean; nonceSeconds: number },
) {
  return {
    /** Mails a fresh nonce to the user's confirmed address (replacing the previous one). */
    async send(userId: string): Promise<void> {
      const [user] = await sql<Array<{ email: string | null; email_confirmed_at: Date | null }>>`
        select email, email_confirmed_at from auth.users where id = ${userId} and deleted_at is null`;
      if (!user?.email) {
        throw authErrors.validation('Reauthentication requires the user to have an email or a phone number');
      }
      if (!user.email_confirmed_at) throw new AuthError(422, 'email_not_confirmed', 'Please verify your email first.');
      const nonce = String(randomInt(0, 1_000_000)).padStart(6, '0');
      await sql`update auth.users set reauthentication_token = ${nonceHash(userId, nonce)},
        reauthentication_sent_at = now() where id = ${userId}`;
      const minutes = Math.max(1, Math.round(settings.nonceSeconds / 60));
      await mailer.send({
        to: user.email,
        subject: 'Confirm reauthentication',
        template: 'reauthentication',
        text: `To confirm it is you, enter this code: ${nonce}\n\nThe code works once and expires in ${minutes} minutes. If you did not ask for it, ignore this message.\n`,
      });
    },

    /** Before a password change: nothing to do unless secure change is on and the session is not recent. */
    async checkPasswordChange(userId: string, sessionId: string | undefined, nonce: unknown): Promise<void> {
      if (!settings.securePasswordChange) return;
      const [session] = sessionId
        ? await sql<Array<{ created_at: Date }>>`select created_at from auth.sessions where id = ${sessionId}`
        : [];
      if (session && Date.now() - session.created_at.getTime() < RECENT_SESSION_MS) return;
      if (typeof nonce !== 'string' || nonce === '') {
        throw new AuthError(400, 'reauthentication_needed', 'Password update requires reauthentication');
      }
      const spent = await sql`
        update auth.users set reauthentication_token = null, reauthentication_sent_at = null
        where id = ${userId} and reauthentication_token = ${nonceHash(userId, nonce)}
          and reauthentication_sent_at > now() - make_interval(secs => ${settings.nonceSeconds})`;
      if (spent.count === 0) {
        throw new AuthError(422, 'reauthentication_not_valid', 'Nonce has expired or is invalid');
      }
    },
  };
}

export type Reauthentication = ReturnType<typeof createReauthentication>;
