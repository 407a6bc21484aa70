// Runs one claimed push job: works out the recipients' messages, sends those not yet accepted in groups (the
// lease is extended after each group), and records the outcome. Tokens the provider could not take (a failed
// request) are left for a later attempt, with backoff; tokens it accepted are never sent again for this job.
import type postgres from 'postgres';
import { sendPush } from '../push/push-sender.js';
import type { PushProvider } from '../push/push-provider.js';
import { planChatNotification, type NotificationPlan } from './chat-plan.js';
import { planSubmissionNotification, type SubmissionEventData } from './submission-plan.js';
import type { JobStore, PushJob } from './job-store.js';

/** Messages sent between two progress records (and lease extensions). */
const GROUP = 1000;
const MAX_ATTEMPTS = 10;

export interface JobDeps {
  sql: postgres.Sql;
  store: JobStore;
  provider: PushProvider;
  appUrl: string;
  workerId: string;
  leaseMs: number;
  log: { warn(msg: string, fields?: Record<string, unknown>): void };
}

interface JobOutcome {
  done: boolean;
  result: Record<string, unknown>;
  error?: string;
}

async function planJob(deps: JobDeps, job: PushJob): Promise<NotificationPlan> {
  // A deleted auction (domain/0031) tells nobody: its pushes are dropped, not held for an undo.
  const [deleted] =
    await deps.sql`select 1 from public.auctions where id = ${job.auction_id} and deleted_at is not null`;
  if (deleted) return { messages: [], recipients: 0, skipped: 0 };
  if (job.kind === 'chat_message') return planChatNotification(deps.sql, job.subject_id, deps.appUrl);
  return planSubmissionNotification(deps.sql, job.auction_id, job.payload as SubmissionEventData);
}

/** Delay before attempt n+1 of a job whose provider requests failed: 1 s doubling, at most 10 minutes. */
function jobRetryDelayMs(attempts: number): number {
  return Math.min(600_000, 1000 * 2 ** Math.max(0, attempts - 1));
}

export async function runJob(deps: JobDeps, job: PushJob): Promise<JobOutcome> {
  const plan = await planJob(deps, job);
  const already = new Set(job.delivered_tokens);
  const pending = plan.messages.filter((m) => !already.has(m.to));
  let sent = job.delivered_tokens.length;
  let removed = job.removed_tokens;
  let providerError: string | undefined;
  for (let i = 0; i < pending.length; i += GROUP) {
    const outcome = await sendPush(deps.sql, deps.provider, pending.slice(i, i + GROUP));
    const accepted = outcome.tickets.filter((t) => t.status === 'ok').map((t) => t.token);
    const failed = outcome.tickets.find((t) => t.error === 'ProviderError');
    if (failed) providerError = failed.message ?? 'push provider failed';
    sent += accepted.length;
    removed += outcome.removedTokens.length;
    const kept = await deps.store.progress(job, deps.workerId, accepted, outcome.removedTokens.length, deps.leaseMs);
    if (!kept) return { done: false, result: {}, error: 'lease lost to another worker' };
  }
  const result = {
    ...(job.kind === 'chat_message' ? { message_id: job.subject_id } : { submission_id: job.subject_id }),
    recipients: plan.recipients,
    sent,
    skipped: plan.skipped,
    removed_tokens: removed,
  };
  if (providerError) {
    const final = job.attempts >= MAX_ATTEMPTS;
    deps.log.warn('push job will be retried', { job_id: job.id, attempts: job.attempts, error: providerError, final });
    await deps.store.retryLater(job, deps.workerId, providerError, jobRetryDelayMs(job.attempts), final);
    return { done: false, result, error: providerError };
  }
  await deps.store.complete(job, deps.workerId, result);
  return { done: true, result };
}
