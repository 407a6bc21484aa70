// send-push-notifications: an admin (or the service role) sends a notification to members of their auction,
// by user id (all their registered tokens) and/or by token; at most 100 tokens a request.
import type postgres from 'postgres';
import { functionErrors } from '../errors.js';
import type { Caller } from '../invites/invitation-service.js';
import type { PushMessage, PushPriority, PushProvider } from './push-provider.js';
import { sendPush } from './push-sender.js';

export const MAX_PUSH_TOKENS = 100;

export interface SendPushInput {
  auction_id: string;
  title: string;
  body: string;
  notification_type: string;
  data?: Record<string, unknown>;
  user_ids?: string[];
  tokens?: string[];
  sound?: string | null;
  badge?: number;
  priority?: PushPriority;
}

interface SendPushResult {
  sent: number;
  failed: number;
  removed_tokens: number;
  tickets: Array<{ token: string; status: 'ok' | 'error'; id?: string; error?: string; message?: string }>;
}

export async function sendPushNotifications(
  deps: { ownerSql: postgres.Sql; provider: PushProvider },
  caller: Caller,
  input: SendPushInput,
): Promise<SendPushResult> {
  const sql = deps.ownerSql;
  if (caller.role !== 'service_role') {
    const [row] = await sql<[{ allowed: boolean }]>`
      select exists (select 1 from public.auction_members where auction_id = ${input.auction_id}
                       and user_id = ${caller.userId ?? null}::uuid and role in ('owner', 'admin'))
          or exists (select 1 from public.super_admins where user_id = ${caller.userId ?? null}::uuid) as allowed`;
    if (!row.allowed) throw functionErrors.forbidden('only admins and owners of the auction can send notifications');
  }
  const [deleted] = await sql`select 1 from public.auctions where id = ${input.auction_id} and deleted_at is not null`;
  if (deleted) throw functionErrors.validation('the auction is deleted', 'pushes for a deleted auction are not sent');
  const userIds = [...new Set(input.user_ids ?? [])];
  const tokens = [...new Set(input.tokens ?? [])];
  const members = await sql<Array<{ user_id: string }>>`
    select user_id from public.auction_members
     where auction_id = ${input.auction_id} and user_id = any(${userIds}::uuid[])`;
  if (members.length < userIds.length) {
    const known = new Set(members.map((m) => m.user_id));
    const strangers = userIds.filter((u) => !known.has(u));
    throw functionErrors.validation('user_ids must be members of the auction', `not members: ${strangers.join(', ')}`);
  }
  const targets = await sql<Array<{ token: string; member: boolean }>>`
    select t.token, exists (select 1 from public.auction_members am
                             where am.auction_id = ${input.auction_id} and am.user_id = t.user_id) as member
      from public.user_push_tokens t
     where t.user_id = any(${userIds}::uuid[]) or t.token = any(${tokens}::text[])
     order by t.created_at, t.token`;
  const registered = new Set(targets.filter((t) => t.member).map((t) => t.token));
  const unknown = tokens.filter((t) => !registered.has(t));
  if (unknown.length > 0)
    throw functionErrors.validation(
      'tokens must be registered to members of the auction',
      `${unknown.length} token(s) are not`,
    );
  const all = [...registered];
  if (all.length > MAX_PUSH_TOKENS)
    throw functionErrors.validation(
      `at most ${MAX_PUSH_TOKENS} tokens in one request`,
      `the request targets ${all.length} tokens`,
    );
  const messages = all.map(
    (to): PushMessage => ({
      to,
      title: input.title,
      body: input.body,
      data: { ...input.data, notification_type: input.notification_type },
      sound: input.sound === undefined ? 'default' : input.sound,
      badge: input.badge,
      priority: input.priority ?? 'default',
    }),
  );
  const outcome = await sendPush(sql, deps.provider, messages);
  if (outcome.tickets.length > 0 && outcome.tickets.every((t) => t.error === 'ProviderError'))
    throw functionErrors.internal(outcome.tickets[0].message ?? 'push provider failed');
  return {
    sent: outcome.sent,
    failed: outcome.failed,
    removed_tokens: outcome.removedTokens.length,
    tickets: outcome.tickets.map((t) => ({
      token: t.token,
      status: t.status,
      ...(t.id ? { id: t.id } : {}),
      ...(t.error ? { error: t.error, message: t.message } : {}),
    })),
  };
}
