// Sends push messages through the configured provider and keeps user_push_tokens tidy: tokens the provider
// answers DeviceNotRegistered for are deleted, tokens it accepted get last_used_at. Runs on the owner connection.
import type postgres from 'postgres';
import type { PushMessage, PushProvider, PushTicket } from './push-provider.js';

interface PushOutcome {
  tickets: PushTicket[];
  sent: number;
  failed: number;
  /** Tokens deleted because the provider no longer knows the device. */
  removedTokens: string[];
}

export async function sendPush(
  sql: postgres.Sql,
  provider: PushProvider,
  messages: readonly PushMessage[],
): Promise<PushOutcome> {
  const tickets = messages.length === 0 ? [] : await provider.send(messages);
  const gone = [...new Set(tickets.filter((t) => t.error === 'DeviceNotRegistered').map((t) => t.token))];
  const used = [...new Set(tickets.filter((t) => t.status === 'ok').map((t) => t.token))];
  if (gone.length > 0) await sql`delete from public.user_push_tokens where token = any(${gone}::text[])`;
  if (used.length > 0)
    await sql`update public.user_push_tokens set last_used_at = now() where token = any(${used}::text[])`;
  const sent = tickets.filter((t) => t.status === 'ok').length;
  return { tickets, sent, failed: tickets.length - sent, removedTokens: gone };
}

/** The registered tokens of these users, in the order of the user list (a user's tokens oldest first). */
export async function tokensOfUsers(
  sql: postgres.Sql | postgres.TransactionSql,
  userIds: readonly string[],
): Promise<Array<{ user_id: string; token: string }>> {
  if (userIds.length === 0) return [];
  const rows = await sql<Array<{ user_id: string; token: string }>>`
    select t.user_id, t.token
      from unnest(${userIds as string[]}::uuid[]) with ordinality as u(id, n)
      join public.user_push_tokens t on t.user_id = u.id
     order by u.n, t.created_at, t.token`;
  return [...rows];
}
