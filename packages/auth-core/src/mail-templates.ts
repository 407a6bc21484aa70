// The texts of the e-mails the auth family sends. Links point at /auth/v1/verify, which redirects to the app.
import type { MailMessage } from './mailer.js';

export type LinkMailKind = 'recovery' | 'signup' | 'invite' | 'magiclink' | 'email_change';

const SUBJECTS: Record<LinkMailKind, string> = {
  recovery: 'Reset your password',
  signup: 'Confirm your sign-up',
  invite: 'You have been invited',
  magiclink: 'Your sign-in link',
  email_change: 'Confirm your new e-mail address',
};

const LEADS: Record<LinkMailKind, string> = {
  recovery: 'Someone asked to reset the password of this account. Follow this link to choose a new one:',
  signup: 'Follow this link to confirm your e-mail address:',
  invite: 'You have been invited to create an account. Follow this link to accept:',
  magiclink: 'Follow this link to sign in:',
  email_change: 'Follow this link to confirm your new e-mail address:',
};

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

export function linkMail(kind: LinkMailKind, to: string, link: string, ttlSeconds: number, code?: string): MailMessage {
  const lead = LEADS[kind];
  const minutes = Math.max(1, Math.round(ttlSeconds / 60));
  const codeLine = code ? `Or enter this code: ${code}` : '';
  const expiry = code
    ? `The link and the code work once (either spends both) and expire in ${minutes} minutes.`
    : `The link works once and expires in ${minutes} minutes.`;
  const tail = `If you did not ask for this, ignore this message. ${expiry}`;
  return {
    to,
    subject: SUBJECTS[kind],
    template: kind,
    text: `${lead}\n\n${link}\n\n${codeLine ? `${codeLine}\n\n` : ''}${tail}\n`,
    html:
      `<p>${escapeHtml(lead)}</p><p><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>` +
      (codeLine ? `<p>${escapeHtml(codeLine)}</p>` : '') +
      `<p>${escapeHtml(tail)}</p>`,
  };
}
