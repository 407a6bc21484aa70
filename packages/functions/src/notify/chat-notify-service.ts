// send-chat-notification's POST {message_id}: runs the message's push job now, or answers `already_sent` when
// the worker (or an earlier call) has done it. Only the sender of the message or the service role may ask.
import type postgres from 'postgres';
import { functionErrors } from '../errors.js';
import type { Caller } from '../invites/invitation-service.js';
import type { PushProvider } from '../push/push-provider.js';
import { createJobStore } from './job-store.js';
import { runJob } from './job-runner.js';

interface ChatNotifyDeps {
  ownerSql: postgres.Sql;
  provider: PushProvider;
  appUrl: string;
  leaseMs: number;
  workerId: string;
  log: { warn(msg: string, fields?: Record<string, unknown>): void };
}

export async function notifyChatMessage(
  deps: ChatNotifyDeps,
  caller: Caller,
  messageId: string,
): Promise<Record<string, unknown>> {
  const sql = deps.ownerSql;
  const [message] = await sql<[{ auction_id: string; user_id: string | null; member: boolean }]>`
    select m.auction_id, m.user_id,
           exists (select 1 from public.auction_members am
                    where am.auction_id = m.auction_id and am.user_id = ${caller.userId ?? null}::uuid) as member
      from public.messages m
     where m.id = ${messageId}
       -- A deleted auction's message is no message to anyone (its pushes are dropped, see job-runner.ts).
       and not exists (select 1 from public.auctions a where a.id = m.auction_id and a.deleted_at is not null)`;
  if (!message) throw functionErrors.notFound('message not found');
  if (caller.role !== 'service_role' && message.user_id !== caller.userId) {
    // Members learn the message exists but is not theirs; others learn nothing.
    if (!message.member) throw functionErrors.notFound('message not found');
    throw functionErrors.forbidden('only the sender of a message can ask for its notification');
  }
  const store = createJobStore(sql);
  const job = await store.ensure('chat_message', messageId, message.auction_id);
  if (job.status === 'sent') return { message_id: messageId, already_sent: true, ...summary(job.result) };
  const claimed = await store.claimOne(job.id, deps.workerId, deps.leaseMs);
  if (!claimed) {
    // Another worker holds it right now: wait for its outcome (bounded by its lease).
    const end = Date.now() + deps.leaseMs;
    while (Date.now() < end) {
      await new Promise((r) => setTimeout(r, 100));
      const now = await store.get('chat_message', messageId);
      if (now?.status === 'sent') return { message_id: messageId, already_sent: true, ...summary(now.result) };
    }
    throw functionErrors.internal('the notification is being sent by another worker; try again shortly');
  }
  const outcome = await runJob({ ...deps, sql, store }, claimed);
  if (!outcome.done)
    throw functionErrors.internal(`push provider failed (${outcome.error}); the notification will be retried`);
  return { ...outcome.result, already_sent: false };
}

function summary(result: Record<string, unknown> | null): Record<string, unknown> {
  const { message_id: _id, ...rest } = result ?? {};
  return rest;
}
