// Admin invitations and e-mail-change links, as GoTrue's admin API has them: POST /admin/invite mails an invitation
// (verifyOtp type `invite`) and stamps invited_at; generate_link's email_change_current and email_change_new types
// issue the e-mail-change token for a new address without mailing it.
import type postgres from 'postgres';
import { isObject, validEmail } from './auth-input.js';
import type { AuthService } from './auth-service.js';
import { authErrors } from './errors.js';
import { issueOneTimeToken } from './one-time-tokens.js';
import * as users from './user-repository.js';
import { userJson, type UserJson } from './user-view.js';

export const EMAIL_CHANGE_LINK_TYPES = ['email_change_current', 'email_change_new'] as const;

export function createAdminInvites(sql: postgres.Sql, auth: AuthService, options: { oneTimeTokenSeconds: number }) {
  return {
    /** Creates the user when needed (unconfirmed, no password) and mails the invitation; a confirmed user is 422. */
    async invite(input: { email?: unknown; data?: unknown }, redirectTo: string | undefined): Promise<UserJson> {
      const email = validEmail(input.email);
      if (input.data !== undefined && input.data !== null && !isObject(input.data)) {
        throw authErrors.validation('data must be an object');
      }
      let user = await users.findUserByEmail(sql, email);
      if (user?.email_confirmed_at) throw authErrors.emailExists();
      user ??= await users.insertUser(sql, {
        email,
        passwordHash: null,
        confirmed: false,
        userMetadata: (input.data as Record<string, unknown> | undefined) ?? {},
      });
      if (!user) throw authErrors.emailExists();
      await sql`update auth.users set invited_at = now() where id = ${user.id}`;
      await auth.mailOneTime('invite', 'invite', user.id, email, auth.redirectTarget(redirectTo));
      return userJson((await users.findUserById(sql, user.id))!);
    },

    /** generate_link for an e-mail change: one token for the new address, confirmed with verifyOtp type email_change. */
    async emailChangeLink(input: { type: string; email?: unknown; new_email?: unknown; redirect_to?: unknown }) {
      const email = validEmail(input.email);
      const newEmail = validEmail(input.new_email);
      const user = await users.findUserByEmail(sql, email);
      if (!user) throw authErrors.userNotFound();
      if (await users.findUserByEmail(sql, newEmail)) throw authErrors.emailExists();
      const { token, code } = await issueOneTimeToken(
        sql,
        user.id,
        'email_change',
        options.oneTimeTokenSeconds,
        newEmail,
      );
      const redirectTo = auth.redirectTarget(typeof input.redirect_to === 'string' ? input.redirect_to : undefined);
      return {
        ...userJson(user),
        new_email: newEmail,
        // Both types verify as email_change: the link says so, as GoTrue's does.
        action_link: auth.linkUrl('email_change', token, redirectTo),
        email_otp: code,
        hashed_token: token,
        verification_type: input.type,
        redirect_to: redirectTo,
      };
    },
  };
}
