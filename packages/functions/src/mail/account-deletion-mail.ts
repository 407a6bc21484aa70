// The account-deletion confirmation: always to the caller's own address (read from the database, never from the
// request), listing what anonymize_user removes and what it keeps. Best effort: a provider failure is logged and
// reported in the answer, never thrown, so the app goes on to delete the account.
import type postgres from 'postgres';
import type { Mailer } from '@auction-ops/auth-core';
import { renderTemplate } from '../templates/template-renderer.js';
import type { Caller } from '../invites/invitation-service.js';
import { APP_NAME, logEmail } from './invite-mail.js';
import { functionErrors } from '../errors.js';

const DEFAULT_DELETED_ITEMS = [
  'Your profile: name, e-mail address and avatar',
  'Your sign-in identity and password',
  'Your sessions on every device',
  'Your push notification tokens',
  'Your memberships in auctions',
  'Your chat read markers and notification preferences',
];

const DEFAULT_PRESERVED_ITEMS = [
  'Lot submissions and their photos',
  'Quality inspections and defects',
  'Problem reports, causes and actions',
  'Chat messages you sent',
];

type DeletionMailResult =
  | { sent: true; delivery: 'sent' | 'stored'; email_id: string }
  | { sent: false; delivery: 'failed'; error: string };

export async function sendAccountDeletionMail(
  deps: { sql: postgres.Sql; ownerSql: postgres.Sql; mailer: Mailer },
  caller: Caller,
  lists: { deleted?: string[]; preserved?: string[] },
): Promise<DeletionMailResult> {
  if (!caller.userId) throw functionErrors.forbidden('send-account-deletion-email is about the signed-in user');
  const [user] = await deps.ownerSql<[{ email: string | null; name: string }]>`
    select u.email, coalesce(nullif(trim(p.full_name), ''), split_part(u.email, '@', 1)) as name
      from auth.users u left join public.users p on p.id = u.id
     where u.id = ${caller.userId} and u.deleted_at is null`;
  if (!user?.email) throw functionErrors.validation('this account has no e-mail address to write to');
  const { text, html } = renderTemplate('account-deletion-email', {
    name: user.name,
    email: user.email,
    app_name: APP_NAME,
    deleted_items: lists.deleted ?? DEFAULT_DELETED_ITEMS,
    preserved_items: lists.preserved ?? DEFAULT_PRESERVED_ITEMS,
  });
  try {
    const emailId = await deps.mailer.send({
      to: user.email,
      subject: `Your ${APP_NAME} account is being deleted`,
      text,
      html,
      template: 'account_deletion',
    });
    const delivery = deps.mailer.provider === 'outbox' ? 'stored' : 'sent';
    await logEmail(deps.sql, caller, user.email, 'account_deletion', delivery, emailId, null);
    return { sent: true, delivery, email_id: emailId };
  } catch (error) {
    const message = (error as Error).message;
    await logEmail(deps.sql, caller, user.email, 'account_deletion', 'failed', null, message).catch(() => {});
    return { sent: false, delivery: 'failed', error: message };
  }
}
