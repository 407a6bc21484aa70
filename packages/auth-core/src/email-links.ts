// The links auth mails carry: where a link may send the user back to (redirect_to against the allow list), the
// verify URL itself, and issuing a one-time token and code and mailing them.
import type postgres from 'postgres';
import type { AuthSettings } from './auth-settings.js';
import type { Mailer } from './mailer.js';
import { linkMail, type LinkMailKind } from './mail-templates.js';
import { issueOneTimeToken, type OneTimeSecret, type OneTimeTokenType } from './one-time-tokens.js';
import type { PkceChallenge } from './pkce-flow.js';

export function createEmailLinks(sql: postgres.Sql, mailer: Mailer, settings: AuthSettings) {
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

  /** Issues a token and code of `type` for the user and mails both (email-otp-service.ts, resend). */
  async function mailOneTime(
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
  }

  return { redirectTarget, linkUrl, mailOneTime };
}
