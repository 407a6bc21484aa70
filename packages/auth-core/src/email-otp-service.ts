// E-mail one-time codes and magic links: POST /otp (signInWithOtp) and POST /resend. One e-mail carries a link and
// a six-digit code of the same token. Both answer alike whether or not the address is known, and do the lookup
// and the mail after the answer, so neither reveals who has an account; unless `revealUnknownAddresses` asks for
// GoTrue's answer to a sign-in without sign-up for an address with no account (422 otp_disabled).
import type postgres from 'postgres';
import { validEmail, isObject } from './auth-input.js';
import type { AuthService } from './auth-service.js';
import type { AuthSettings } from './auth-settings.js';
import { authErrors } from './errors.js';
import type { PkceChallenge } from './pkce-flow.js';
import * as users from './user-repository.js';

export function createEmailOtpService(
  sql: postgres.Sql,
  auth: AuthService,
  settings: Pick<AuthSettings, 'disableSignup'> & { revealUnknownAddresses?: boolean },
) {
  return {
    /** signInWithOtp({email}): a magic link and code; with createUser, a new (unconfirmed) user first. */
    async signInWithOtp(input: {
      email: unknown;
      createUser: boolean;
      data?: unknown;
      redirectTo?: string;
      pkce?: PkceChallenge;
    }) {
      const email = validEmail(input.email);
      const redirect = auth.redirectTarget(input.redirectTo);
      const mayCreate = input.createUser && !settings.disableSignup;
      if (settings.revealUnknownAddresses && !mayCreate && !(await users.findUserByEmail(sql, email))) {
        throw authErrors.otpSignupsDisabled();
      }
      auth.background('otp mail', async () => {
        let user = await users.findUserByEmail(sql, email);
        if (!user && mayCreate) {
          user = await users.insertUser(sql, {
            email,
            passwordHash: null,
            confirmed: false,
            userMetadata: isObject(input.data) ? input.data : {},
          });
        }
        if (!user) return;
        // A first sign-in confirms the address when the code or link is used (verify type `email` or `signup`).
        if (user.email_confirmed_at) {
          await auth.mailOneTime('magiclink', 'magiclink', user.id, email, redirect, '', input.pkce);
        } else await auth.mailOneTime('signup', 'confirmation', user.id, email, redirect, '', input.pkce);
      });
    },

    /** resend({type: 'signup' | 'email_change', email}): a fresh link and code, replacing the previous ones. */
    async resend(input: { type: unknown; email: unknown; redirectTo?: string; pkce?: PkceChallenge }) {
      if (input.type !== 'signup' && input.type !== 'email_change') {
        throw authErrors.validation('Missing one of these types: signup, email_change');
      }
      const email = validEmail(input.email);
      const redirect = auth.redirectTarget(input.redirectTo);
      const type = input.type;
      auth.background('resend mail', async () => {
        const user = await users.findUserByEmail(sql, email);
        if (!user) return;
        if (type === 'signup') {
          if (!user.email_confirmed_at) {
            await auth.mailOneTime('signup', 'confirmation', user.id, email, redirect, '', input.pkce);
          }
          return;
        }
        const [pending] = await sql<Array<{ relates_to: string }>>`
          select relates_to from auth.one_time_tokens where user_id = ${user.id} and token_type = 'email_change'`;
        if (pending) {
          await auth.mailOneTime(
            'email_change',
            'email_change',
            user.id,
            pending.relates_to,
            redirect,
            pending.relates_to,
            input.pkce,
          );
        }
      });
    },
  };
}

export type EmailOtpService = ReturnType<typeof createEmailOtpService>;
