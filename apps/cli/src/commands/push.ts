// `auction-ops push`: the local push outbox (PUSH_PROVIDER=outbox), like `mail` for e-mail. Lists the stored
// notifications, newest first, optionally only those to one device token.
import postgres from 'postgres';
import { listPushOutbox, type PushOutboxEntry } from '@auction-ops/functions';

const USAGE = `usage: auction-ops push [list] [--token TOKEN] [--limit N] [--json]
`;

export async function pushCommand(args: string[], ctx: { ownerUrl: string }): Promise<void> {
  const [sub = 'list', ...rest] = args[0]?.startsWith('--') ? ['list', ...args] : args;
  if (sub === 'help' || sub === '--help') {
    process.stdout.write(USAGE);
    return;
  }
  if (sub !== 'list') throw new Error(`unknown push command "${sub}"\n${USAGE}`);
  const options = parseOptions(rest);
  const sql = postgres(ctx.ownerUrl, { max: 1, onnotice: () => {} });
  try {
    const entries = await listPushOutbox(sql, { token: options.token, limit: options.limit });
    if (options.json) process.stdout.write(`${JSON.stringify(entries, null, 2)}\n`);
    else process.stdout.write(entries.length === 0 ? 'the push outbox is empty\n' : formatPushList(entries));
  } finally {
    await sql.end();
  }
}

function parseOptions(args: string[]): { token?: string; limit?: number; json: boolean } {
  const out: { token?: string; limit?: number; json: boolean } = { json: false };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--token') out.token = args[++i];
    else if (arg === '--json') out.json = true;
    else if (arg === '--limit') {
      const n = Number(args[++i]);
      if (!Number.isInteger(n) || n < 1 || n > 1000) throw new Error('--limit must be a whole number from 1 to 1000');
      out.limit = n;
    } else throw new Error(`unknown option "${arg}"\n${USAGE}`);
  }
  return out;
}

function formatPushList(entries: PushOutboxEntry[]): string {
  return entries
    .map((e) => {
      const when = e.created_at.toISOString().replace(/\.\d+Z$/, 'Z');
      const data = e.data ? `\n  data: ${JSON.stringify(e.data)}` : '';
      return `${when}  ${e.token}  [${e.priority ?? 'default'}]\n  ${e.title ?? ''}\n  ${e.body ?? ''}${data}\n`;
    })
    .join('\n');
}
