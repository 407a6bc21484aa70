// check-pending-submissions: finds overdue locations (get_pending_submissions, which applies operating hours in
// the auction's time zone), works out who to tell (the users assigned to a location, else its auction's admins
// and owners), leaves out (user, location) pairs told within the location's frequency, and sends one notification
// per user listing their overdue locations. One run at a time across servers: the whole run holds a transaction
// advisory lock, and the notices are recorded in that transaction after the provider accepted them, so a run that
// dies sends again next time instead of never.
import type postgres from 'postgres';
import { sendPush, tokensOfUsers } from '../push/push-sender.js';
import type { PushMessage, PushProvider } from '../push/push-provider.js';

/** The advisory lock key of the check (any fixed number shared by every server). */
const PENDING_CHECK_LOCK = 72_310_415;

interface PendingLocation {
  location_id: string;
  location_name: string;
  auction_id: string;
  minutes_overdue: number;
  notified_user_ids: string[];
}

interface PendingCheckResult {
  checked_at: string;
  overdue_locations: number;
  notified_users: number;
  notifications_sent: number;
  locations: PendingLocation[];
}

export interface PendingCheckDeps {
  sql: postgres.Sql;
  provider: PushProvider;
  log: { warn(msg: string, fields?: Record<string, unknown>): void };
}

interface Overdue {
  location_id: string;
  location_name: string;
  auction_id: string;
  submission_frequency_minutes: number;
  minutes_overdue: number;
}

/**
 * Runs the check as of `now`. `wait` false (the scheduler) gives up at once when another run holds the lock and
 * returns undefined; true (the endpoint) waits for it, then finds the pairs that run told already.
 */
export async function runPendingCheck(
  deps: PendingCheckDeps,
  options: { now?: Date; wait: boolean },
): Promise<PendingCheckResult | undefined> {
  const now = options.now ?? new Date();
  return (
    await deps.sql.begin(async (tx) => {
      if (options.wait) await tx`select pg_advisory_xact_lock(${PENDING_CHECK_LOCK})`;
      else {
        const [{ locked }] = await tx<
          [{ locked: boolean }]
        >`select pg_try_advisory_xact_lock(${PENDING_CHECK_LOCK}) as locked`;
        if (!locked) return [undefined];
      }
      // The service role's view of get_pending_submissions: every auction's locations.
      await tx`select set_config('request.jwt.claims', '{"role":"service_role"}', true)`;
      const overdue = await tx<Overdue[]>`
      select location_id, location_name, auction_id, submission_frequency_minutes, minutes_overdue
        from public.get_pending_submissions(${now}) p
       where not exists (select 1 from public.auctions a where a.id = p.auction_id and a.deleted_at is not null)`;
      const recipients = await recipientsOf(tx, overdue);
      const recent = await tx<Array<{ user_id: string; location_id: string }>>`
      select n.user_id, n.location_id from notifications.pending_notices n
        join public.locations l on l.id = n.location_id
       where n.location_id = any(${overdue.map((o) => o.location_id)}::uuid[])
         and n.notified_at > ${now}::timestamptz - make_interval(mins => l.submission_frequency_minutes)`;
      const told = new Set(recent.map((r) => `${r.user_id}/${r.location_id}`));

      const perUser = new Map<string, Overdue[]>();
      for (const o of overdue) {
        for (const userId of recipients.get(o.location_id) ?? []) {
          if (told.has(`${userId}/${o.location_id}`)) continue;
          const list = perUser.get(userId) ?? [];
          list.push(o);
          perUser.set(userId, list);
        }
      }
      const tokens = await tokensOfUsers(tx, [...perUser.keys()]);
      const messages = tokens.map((t) => reminder(t.token, perUser.get(t.user_id) ?? []));
      const owner = new Map(tokens.map((t) => [t.token, t.user_id]));
      const outcome = await sendPush(deps.sql, deps.provider, messages);
      const notified = new Set(outcome.tickets.filter((t) => t.status === 'ok').map((t) => owner.get(t.token) ?? ''));
      notified.delete('');
      const notices = [...notified].flatMap((userId) =>
        (perUser.get(userId) ?? []).map((o) => ({ user_id: userId, location_id: o.location_id, m: o.minutes_overdue })),
      );
      if (notices.length > 0) {
        await tx`
        insert into notifications.pending_notices (user_id, location_id, notified_at, minutes_overdue)
        select x.user_id, x.location_id, ${now}, x.m
          from jsonb_to_recordset(${tx.json(notices)}::jsonb) as x(user_id uuid, location_id uuid, m integer)
        on conflict (user_id, location_id) do update
          set notified_at = excluded.notified_at, minutes_overdue = excluded.minutes_overdue`;
      }
      const failed = outcome.tickets.find((t) => t.error === 'ProviderError');
      if (failed) deps.log.warn('overdue notifications not accepted; next run retries', { error: failed.message });
      const result: PendingCheckResult = {
        checked_at: now.toISOString(),
        overdue_locations: overdue.length,
        notified_users: notified.size,
        notifications_sent: outcome.sent,
        locations: overdue.map((o) => ({
          location_id: o.location_id,
          location_name: o.location_name,
          auction_id: o.auction_id,
          minutes_overdue: o.minutes_overdue,
          notified_user_ids: [...notified].filter((u) => perUser.get(u)?.some((x) => x.location_id === o.location_id)),
        })),
      };
      return [result];
    })
  )[0] as PendingCheckResult | undefined;
}

/** Users to tell per overdue location: the assigned users, or the auction's admins and owners when none is. */
async function recipientsOf(tx: postgres.TransactionSql, overdue: Overdue[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (overdue.length === 0) return out;
  const ids = overdue.map((o) => o.location_id);
  // The domain's rule: the location's assignees, else its auction's admins and owners.
  const rows = await tx<Array<{ location_id: string; user_id: string }>>`
    select l.id as location_id, r.user_id
      from unnest(${ids}::uuid[]) as l(id)
      cross join lateral public.location_recipients(l.id) as r(user_id)`;
  for (const r of rows) out.set(r.location_id, [...(out.get(r.location_id) ?? []), r.user_id]);
  return out;
}

export function formatOverdue(minutes: number): string {
  if (minutes < 60) return `${minutes} min`;
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return m === 0 ? `${h} h` : `${h} h ${m} min`;
}

function reminder(token: string, locations: Overdue[]): PushMessage {
  const sorted = [...locations].sort((a, b) => b.minutes_overdue - a.minutes_overdue);
  const title =
    sorted.length === 1
      ? `${sorted[0].location_name} is due for a count`
      : `${sorted.length} locations are due for a count`;
  return {
    to: token,
    title,
    body: sorted.map((o) => `${o.location_name}: ${formatOverdue(o.minutes_overdue)} overdue`).join('\n'),
    sound: 'default',
    priority: 'high',
    data: {
      type: 'pending_submissions',
      locations: sorted.map((o) => ({
        location_id: o.location_id,
        location_name: o.location_name,
        auction_id: o.auction_id,
        minutes_overdue: o.minutes_overdue,
      })),
    },
  };
}
