// `auction-ops push`: the local push outbox (PUSH_PROVIDER=outbox), like `mail` for e-mail. Lists the stored
// notifications, newest first, optionally only those to one device token.
import postgres from 'postgres';
import { listPushOutbox, type PushOutboxEntry } from '@auction-ops/functions';
import { withDatabase } from '../database.js';

interface PushArgs {
  token?: string;
  limit?: number;
  json: boolean;
}

export function runPush(args: PushArgs): Promise<void> {
  return withDatabase((db) => pushCommand(args, db));
}

export async function pushCommand(options: PushArgs, ctx: { ownerUrl: string }): Promise<void> {
  const sql = postgres(ctx.ownerUrl, { max: 1, onnotice: () => {} });
  try {
    const entries = await listPushOutbox(sql, { token: options.token, limit: options.limit });
    if (options.json) process.stdout.write(`${JSON.stringify(entries, null, 2)}\n`);
    else process.stdout.write(entries.length === 0 ? 'the push outbox is empty\n' : formatPushList(entries));
  } finally {
    await sql.end();
  }
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
