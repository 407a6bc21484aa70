// Outgoing e-mail behind one small interface, with three providers chosen by configuration: Resend over
// HTTP, SMTP (nodemailer), and the local outbox (default) that stores every message in auth.mail_outbox.
import type postgres from 'postgres';
import type { Transporter } from 'nodemailer';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** Which template produced it (recovery, confirmation, ...), kept in the outbox. */
  template?: string;
}

export interface Mailer {
  readonly provider: 'outbox' | 'resend' | 'smtp';
  /** Sends (or stores) the message; returns the provider's message id. */
  send(message: MailMessage): Promise<string>;
  close?(): Promise<void>;
}

export interface MailerConfig {
  from: string;
  resendApiKey?: string;
  resendBaseUrl?: string;
  smtpUrl?: string;
}

export function createMailer(sql: postgres.Sql, config: MailerConfig): Mailer {
  if (config.resendApiKey)
    return resendMailer(config.resendApiKey, config.resendBaseUrl ?? 'https://api.resend.com', config.from);
  if (config.smtpUrl) return smtpMailer(config.smtpUrl, config.from);
  return outboxMailer(sql, config.from);
}

export function outboxMailer(sql: postgres.Sql, from: string): Mailer {
  return {
    provider: 'outbox',
    async send(m) {
      const [row] = await sql<Array<{ id: string }>>`
        insert into auth.mail_outbox (to_email, from_email, subject, text_body, html_body, template)
        values (${m.to}, ${from}, ${m.subject}, ${m.text}, ${m.html ?? null}, ${m.template ?? null}) returning id`;
      return row.id;
    },
  };
}

export function resendMailer(apiKey: string, baseUrl: string, from: string): Mailer {
  const endpoint = `${baseUrl.replace(/\/$/, '')}/emails`;
  return {
    provider: 'resend',
    async send(m) {
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ from, to: [m.to], subject: m.subject, text: m.text, html: m.html }),
        signal: AbortSignal.timeout(15_000),
      });
      const body = (await response.json().catch(() => ({}))) as { id?: string; message?: string };
      if (!response.ok || !body.id)
        throw new Error(`resend answered ${response.status}: ${body.message ?? 'no message id'}`);
      return body.id;
    },
  };
}

export function smtpMailer(url: string, from: string): Mailer {
  // nodemailer is loaded with the first message: most servers send none by SMTP, and it adds 4 MB to each process.
  let transport: Promise<Transporter> | undefined;
  const connected = () =>
    (transport ??= import('nodemailer').then(({ default: nodemailer }) => nodemailer.createTransport(url)));
  return {
    provider: 'smtp',
    async send(m) {
      const sender = await connected();
      const info = await sender.sendMail({ from, to: m.to, subject: m.subject, text: m.text, html: m.html });
      return String(info.messageId);
    },
    async close() {
      (await transport)?.close();
    },
  };
}

export interface OutboxMessage {
  id: string;
  to_email: string;
  from_email: string;
  subject: string;
  text_body: string;
  html_body: string | null;
  template: string | null;
  created_at: Date;
}

/** The newest messages of the local outbox, optionally only those to one address. */
export async function listOutbox(
  sql: postgres.Sql,
  options: { to?: string; limit?: number } = {},
): Promise<OutboxMessage[]> {
  const rows = await sql<OutboxMessage[]>`
    select id, to_email, from_email, subject, text_body, html_body, template, created_at from auth.mail_outbox
    where ${options.to ?? null}::text is null or lower(to_email) = lower(${options.to ?? null})
    order by created_at desc, id limit ${options.limit ?? 20}`;
  return [...rows];
}

export async function getOutboxMessage(sql: postgres.Sql, id: string): Promise<OutboxMessage | undefined> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) return undefined;
  const [row] = await sql<OutboxMessage[]>`
    select id, to_email, from_email, subject, text_body, html_body, template, created_at from auth.mail_outbox
      where id = ${id}`;
  return row;
}
