// `auction-ops mail`: the local outbox, like a development mail catcher. Lists stored messages and shows one
// (the default mail provider stores every message the server sends in auth.mail_outbox).
import postgres from 'postgres';
import { getOutboxMessage, listOutbox, type OutboxMessage } from '@auction-ops/auth-core';

const USAGE = `usage: auction-ops mail [list] [--to EMAIL] [--limit N]
       auction-ops mail show <id | latest> [--to EMAIL]
`;

export async function mailCommand(args: string[], ctx: { ownerUrl: string }): Promise<void> {
  const [sub = 'list', ...rest] = args[0]?.startsWith('--') ? ['list', ...args] : args;
  const options = parseOptions(rest);
  if (sub === 'help' || sub === '--help') {
    process.stdout.write(USAGE);
    return;
  }
  const sql = postgres(ctx.ownerUrl, { max: 1, onnotice: () => {} });
  try {
    if (sub === 'list') {
      const messages = await listOutbox(sql, { to: options.to, limit: options.limit });
      process.stdout.write(messages.length === 0 ? 'the outbox is empty\n' : formatList(messages));
    } else if (sub === 'show') {
      const which = options.positional[0];
      if (!which) throw new Error(`mail show needs a message id or "latest"\n${USAGE}`);
      const message =
        which === 'latest'
          ? (await listOutbox(sql, { to: options.to, limit: 1 }))[0]
          : await getOutboxMessage(sql, which);
      if (!message) throw new Error(`no message ${which}${options.to ? ` to ${options.to}` : ''}`);
      process.stdout.write(formatMessage(message));
    } else {
      throw new Error(`unknown mail command "${sub}"\n${USAGE}`);
    }
  } finally {
    await sql.end();
  }
}

function parseOptions(args: string[]): { to?: string; limit?: number; positional: string[] } {
  const out: { to?: string; limit?: number; positional: string[] } = { positional: [] };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--to') out.to = args[++i];
    else if (arg === '--limit') {
      const n = Number(args[++i]);
      if (!Number.isInteger(n) || n < 1 || n > 1000) throw new Error('--limit must be a whole number from 1 to 1000');
      out.limit = n;
    } else out.positional.push(arg);
  }
  return out;
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
