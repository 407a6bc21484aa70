// The development push provider (PUSH_PROVIDER=outbox): every notification is stored in notifications.push_outbox
// instead of going to Expo, and read back with `pnpm cli push`, as the mail outbox is with `pnpm cli mail`.
import type postgres from 'postgres';
import type { PushProvider } from './push-provider.js';

export function createOutboxProvider(sql: postgres.Sql): PushProvider {
  return {
    name: 'outbox',
    async send(messages) {
      if (messages.length === 0) return [];
      const rows = messages.map((m) => ({
        token: m.to,
        title: m.title,
        body: m.body,
        data: m.data ? JSON.stringify(m.data) : null,
        priority: m.priority ?? 'default',
        sound: m.sound ?? null,
        badge: m.badge ?? null,
      }));
      const ids = await sql<Array<{ id: string }>>`
        insert into notifications.push_outbox (token, title, body, data, priority, sound, badge)
        select x.token, x.title, x.body, x.data::jsonb, x.priority, x.sound, x.badge
          from jsonb_to_recordset(${sql.json(rows)}::jsonb)
            as x(token text, title text, body text, data text, priority text, sound text, badge integer)
        returning id`;
      return messages.map((m, i) => ({ token: m.to, status: 'ok' as const, id: ids[i].id }));
    },
  };
}

export interface PushOutboxEntry {
  id: string;
  token: string;
  title: string | null;
  body: string | null;
  data: Record<string, unknown> | null;
  priority: string | null;
  created_at: Date;
}

/** The newest stored notifications, optionally only those to one token. */
export async function listPushOutbox(
  sql: postgres.Sql,
  options: { token?: string; limit?: number } = {},
): Promise<PushOutboxEntry[]> {
  const rows = await sql<PushOutboxEntry[]>`
    select id, token, title, body, data, priority, created_at from notifications.push_outbox
    where ${options.token ?? null}::text is null or token = ${options.token ?? null}
    order by created_at desc, id limit ${options.limit ?? 20}`;
  return [...rows];
}
