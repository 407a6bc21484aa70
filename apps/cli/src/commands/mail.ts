// `auction-ops mail`: the local outbox, like a development mail catcher. Lists stored messages and shows one
// (the default mail provider stores every message the server sends in auth.mail_outbox).
import postgres from 'postgres';
import { getOutboxMessage, listOutbox, type OutboxMessage } from '@auction-ops/auth-core';
import { withDatabase } from '../database.js';

interface MailArgs {
  action: 'list' | 'show';
  /** For show: a message id, or latest. */
  which?: string;
  to?: string;
  limit?: number;
}

export function runMail(args: MailArgs): Promise<void> {
  return withDatabase((db) => mailCommand(args, db));
}

export async function mailCommand({ action, which, to, limit }: MailArgs, ctx: { ownerUrl: string }): Promise<void> {
  const sql = postgres(ctx.ownerUrl, { max: 1, onnotice: () => {} });
  try {
    if (action === 'list') {
      const messages = await listOutbox(sql, { to, limit });
      process.stdout.write(messages.length === 0 ? 'the outbox is empty\n' : formatList(messages));
      return;
    }
    const message =
      which === 'latest' ? (await listOutbox(sql, { to, limit: 1 }))[0] : await getOutboxMessage(sql, which!);
    if (!message) throw new Error(`no message ${which}${to ? ` to ${to}` : ''}`);
    process.stdout.write(formatMessage(message));
  } finally {
    await sql.end();
  }
}

/** The six-digit sign-in code of an auth e-mail (mail-templates.ts writes it on its own line), or '-'. */
function codeOf(m: OutboxMessage): string {
  return m.text_body.match(/^Or enter this code: (\d{6})$/m)?.[1] ?? '-';
}

function formatList(messages: OutboxMessage[]): string {
  const rows = messages.map((m) => [
    m.id,
    m.created_at.toISOString().replace(/\.\d+Z$/, 'Z'),
    m.to_email,
    codeOf(m),
    m.subject,
  ]);
  const header = ['ID', 'SENT', 'TO', 'CODE', 'SUBJECT'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join('  ');
  return `${[line(header), ...rows.map(line)].join('\n')}\n`;
}

function formatMessage(m: OutboxMessage): string {
  return (
    `ID:       ${m.id}\nDate:     ${m.created_at.toISOString()}\nFrom:     ${m.from_email}\nTo:       ${m.to_email}\n` +
    `Subject:  ${m.subject}\n${m.template ? `Template: ${m.template}\n` : ''}\n` +
    `${m.text_body}${m.text_body.endsWith('\n') ? '' : '\n'}`
  );
}
