// The invitation e-mail: names the auction, the inviter, the role (Owner, Administrator, Team Member) with what
// it may do, the expiry date in the auction's time zone and the link; sent through the configured mailer and
// logged in email_log under the caller's claims.
import type postgres from 'postgres';
import type { Mailer } from '@auction-ops/auth-core';
import { inRequestTransaction } from '@auction-ops/database';
import { renderTemplate } from '../templates/template-renderer.js';
import { type AuctionRole, type Caller, type Invitation, inviteUrl } from '../invites/invitation-service.js';
import { functionErrors } from '../errors.js';

const ROLE_WORDING: Record<AuctionRole, { label: string; description: string }> = {
  owner: {
    label: 'Owner',
    description:
      'As an Owner you have full access: you manage members, locations and settings, can transfer ownership ' +
      'and can delete the auction.',
  },
  admin: {
    label: 'Administrator',
    description:
      'As an Administrator you manage users, locations and settings, and you can view all of the auction’s data.',
  },
  team_member: {
    label: 'Team Member',
    description:
      'As a Team Member you submit car counts, inspections and problem reports, and you can view the locations ' +
      'assigned to you.',
  },
};

export const APP_NAME = 'auction-ops';

interface SentMail {
  delivery: 'sent' | 'stored';
  email_id: string;
}

/** A date as a reader in that zone would write it, e.g. "Monday, November 30, 2026 at 9:15 AM (Europe/Berlin)". */
function formatExpiry(iso: string, timeZone: string): string {
  const zone = safeZone(timeZone);
  const text = new Intl.DateTimeFormat('en-US', { dateStyle: 'full', timeStyle: 'short', timeZone: zone }).format(
    new Date(iso),
  );
  return `${text} (${zone})`;
}

function safeZone(zone: string): string {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return zone;
  } catch {
    return 'UTC';
  }
}

export async function sendInviteMail(
  deps: { sql: postgres.Sql; ownerSql: postgres.Sql; mailer: Mailer; appUrl: string },
  caller: Caller,
  invitation: Invitation,
): Promise<SentMail> {
  const [info] = await deps.ownerSql<
    [{ auction_name: string; timezone: string; app_name: string | null; inviter_name: string | null }]
  >`
    select a.name as auction_name, coalesce(nullif(a.settings ->> 'timezone', ''), 'UTC') as timezone,
           b.app_name, public.user_display_name(${invitation.invited_by}::uuid) as inviter_name
      from public.auctions a left join public.auction_branding b on b.auction_id = a.id
     where a.id = ${invitation.auction_id}`;
  if (!info) throw functionErrors.notFound('auction not found');
  const wording = ROLE_WORDING[invitation.role];
  const inviter = info.inviter_name ?? `The ${info.auction_name} team`;
  const appName = info.app_name?.trim() || APP_NAME;
  const { text, html } = renderTemplate('invite-email', {
    inviter_name: inviter,
    auction_name: info.auction_name,
    app_name: appName,
    role_label: wording.label,
    role_description: wording.description,
    invite_url: inviteUrl(deps.appUrl, invitation.token),
    expires_at_text: formatExpiry(invitation.expires_at, info.timezone),
  });
  const subject = `${inviter} invited you to ${info.auction_name} as ${wording.label}`;
  let emailId: string;
  try {
    emailId = await deps.mailer.send({ to: invitation.email, subject, text, html, template: 'auction_invite' });
  } catch (error) {
    const message = (error as Error).message;
    await logEmail(deps.sql, caller, invitation.email, 'auction_invite', 'failed', null, message);
    throw functionErrors.internal(`the invitation e-mail could not be sent (${message}); the invitation stays valid`);
  }
  const delivery = deps.mailer.provider === 'outbox' ? 'stored' : 'sent';
  await logEmail(deps.sql, caller, invitation.email, 'auction_invite', delivery, emailId, null);
  return { delivery, email_id: emailId };
}

/** log_email under the caller's claims, so the row belongs to them. */
export async function logEmail(
  sql: postgres.Sql,
  caller: Caller,
  to: string,
  template: string,
  status: 'sent' | 'stored' | 'failed',
  providerId: string | null,
  error: string | null,
): Promise<void> {
  await inRequestTransaction(sql, caller.role, caller.claims, async (tx) => {
    await tx`select public.log_email(${to}, ${template}, ${status}, ${providerId}, ${error})`;
  });
}
