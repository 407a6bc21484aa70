// The dispatcher's SQL: claim due deliveries under a lease, record an attempt and its outcome, prune the logs.
// Every write is conditional on the lease token, so a dispatcher whose lease expired (it stalled or crashed and
// another took over) cannot overwrite the newer attempt's outcome.
import type postgres from 'postgres';

export interface ClaimedDelivery {
  id: string;
  endpoint_id: string;
  auction_id: string;
  event_type: string;
  payload: { event: string; timestamp: string; webhook_id: string; auction_id: string; data: unknown };
  /** The attempt number this claim makes (1-based, over the delivery's life). */
  attempt: number;
  /** Attempt number within the current round of the schedule (it restarts on replay). */
  attempt_in_round: number;
  lease_token: string;
  url: string;
  secrets: string[];
}

interface AttemptOutcome {
  ok: boolean;
  status?: number;
  timeMs: number;
  body?: string;
  error?: string;
}

export type FailureNext = { kind: 'retry'; delayMs: number } | { kind: 'final' } | { kind: 'gone' };

/** How many due deliveries a claim reads in time order before it walks the endpoints instead. */
const DUE_SCAN = 256;

export function createDeliveryStore(sql: postgres.Sql) {
  /**
   * Whether queued delivery `d` of endpoint `e` may be attempted now: no live lease on it, its endpoint active (a test
   * delivery goes to an inactive one too), and its auction not deleted (a deleted auction's deliveries wait, its
   * lifecycle events excepted: undone, they go out). Both paths of the claim and the idle wait use this one rule, so
   * they cannot disagree about what is due.
   */
  const sendable = () => sql`
    (d.locked_until is null or d.locked_until < now()) and (e.is_active or d.is_test)
    and (d.event_type like 'auction.%' or not exists (select 1 from public.auctions a
           where a.id = e.auction_id and a.deleted_at is not null))`;

  return {
    /**
     * Claims up to `limit` due deliveries, at most `perEndpoint` minus what is in flight per endpoint. A claim moves
     * the delivery's next_attempt_at to the end of its lease (when another dispatcher may take it over), so what is
     * due is never in flight. The first DUE_SCAN due deliveries are read oldest first from the next_attempt_at index,
     * and the claim chooses among those when that read was all of them or when they fill it. Otherwise (a backlog
     * whose oldest deliveries belong to endpoints at their limit, disabled ones, or deleted auctions) it walks the
     * endpoints with queued deliveries, so that one endpoint's backlog cannot keep the others' from being seen. Under
     * a backlog spread over many endpoints, the read fills the claim and the walk (one index probe per endpoint) is
     * not made: a delivery waits only for those due before it.
     */
    async claim(
      workerId: string,
      limit: number,
      perEndpoint: number,
      inflight: Record<string, number>,
      leaseMs: number,
    ) {
      return sql<ClaimedDelivery[]>`
        with recursive due as materialized (
          select d.id, d.endpoint_id, d.next_attempt_at, d.locked_until, d.is_test, d.event_type
            from public.webhook_deliveries d
           where d.status = 'queued' and d.next_attempt_at <= now()
           order by d.next_attempt_at
           limit ${DUE_SCAN}
        ), among_due as (
          select x.id, x.next_attempt_at from (
            select d.id, d.next_attempt_at, e.id as endpoint_id,
                   row_number() over (partition by d.endpoint_id order by d.next_attempt_at) as nth
              from due d
              join public.webhook_endpoints e on e.id = d.endpoint_id
             where ${sendable()}
          ) x
          where x.nth <= ${perEndpoint}::int - coalesce((${sql.json(inflight)}::jsonb ->> x.endpoint_id::text)::int, 0)
        ), scan_enough as (
          select (select count(*) from due) < ${DUE_SCAN} or (select count(*) from among_due) >= ${limit} as yes
        ), queued(endpoint_id) as (
          -- The endpoints with queued deliveries, one index probe each (a loose scan of webhook_deliveries_due_idx).
          (select d.endpoint_id from public.webhook_deliveries d
            where d.status = 'queued' order by d.endpoint_id limit 1)
          union all
          select (select d.endpoint_id from public.webhook_deliveries d
                   where d.status = 'queued' and d.endpoint_id > q.endpoint_id order by d.endpoint_id limit 1)
            from queued q
           where q.endpoint_id is not null
        ), per_endpoint as (
          select d.id, d.next_attempt_at
            from queued q
            join public.webhook_endpoints e on e.id = q.endpoint_id
           cross join lateral (
             select d.id, d.next_attempt_at from public.webhook_deliveries d
              where d.endpoint_id = e.id and d.status = 'queued' and d.next_attempt_at <= now() and ${sendable()}
              order by d.next_attempt_at
              limit greatest(0, ${perEndpoint}::int - coalesce((${sql.json(inflight)}::jsonb ->> e.id::text)::int, 0))
           ) d
           where not (select yes from scan_enough)
        ), candidates as (
          select id, next_attempt_at from among_due where (select yes from scan_enough)
          union all
          select id, next_attempt_at from per_endpoint
          order by next_attempt_at
          limit ${limit}
        ), locked as (
          select d.id from public.webhook_deliveries d
           where d.id = any (array(select id from candidates)) and d.status = 'queued'
             and (d.locked_until is null or d.locked_until < now())
             for update of d skip locked
        ), claimed as (
          -- = any(array(...)) keeps this on the primary key whatever the planner guesses about the CTE's size.
          update public.webhook_deliveries d
             set attempt_count = d.attempt_count + 1, locked_by = ${workerId},
                 locked_until = now() + ${leaseMs}::int * interval '1 millisecond',
                 next_attempt_at = now() + ${leaseMs}::int * interval '1 millisecond', lease_token = gen_random_uuid()
           where d.id = any (array(select id from locked))
          returning d.*
        )
        select d.id, d.endpoint_id, d.auction_id, d.event_type, d.payload, d.attempt_count as attempt,
               d.attempt_count - d.round_start_attempt as attempt_in_round, d.lease_token, e.url,
               array_remove(
                 array[s.secret, case when s.previous_secret_expires_at > now() then s.previous_secret end], null
               ) as secrets
          from claimed d
          join public.webhook_endpoints e on e.id = d.endpoint_id
          join webhooks.endpoint_secrets s on s.endpoint_id = d.endpoint_id`;
    },

    /**
     * Gives back leases this worker holds on deliveries it has not in flight: a claim whose answer was lost (the
     * connection broke after the commit) leased them, but nothing was sent. Without this they would wait out the
     * lease before anyone tried them. The attempt the claim counted did not happen, so it is taken back.
     */
    async releaseLost(workerId: string, inflight: readonly string[]): Promise<number> {
      const rows = await sql`
        update public.webhook_deliveries d
           set attempt_count = d.attempt_count - 1, locked_by = null, locked_until = null, lease_token = null,
               next_attempt_at = now()
         where d.locked_by = ${workerId} and d.status = 'queued' and d.locked_until > now()
           and d.id <> all (${inflight}::uuid[])
        returning d.id`;
      return rows.length;
    },

    /**
     * Milliseconds until the earliest queued delivery that is not leased and whose endpoint is active (0 when one is
     * already due; undefined when none is queued). Walks the next_attempt_at index and stops at the first match.
     */
    async nextDueInMs(): Promise<number | undefined> {
      const [row] = await sql<{ ms: number }[]>`
        select extract(epoch from d.next_attempt_at - now()) * 1000 as ms
          from public.webhook_deliveries d
          join public.webhook_endpoints e on e.id = d.endpoint_id
         where d.status = 'queued' and ${sendable()}
         order by d.next_attempt_at
         limit 1`;
      return row === undefined ? undefined : Math.max(0, Number(row.ms));
    },

    /** Records successful attempts, many in one statement (the dispatcher batches them under load). */
    async recordSuccesses(batch: ReadonlyArray<{ d: ClaimedDelivery; outcome: AttemptOutcome }>): Promise<void> {
      if (batch.length === 0) return;
      const col = <T>(f: (x: { d: ClaimedDelivery; outcome: AttemptOutcome }) => T) => batch.map(f);
      await sql`
        with input as (
          select * from unnest(${col((x) => x.d.id)}::uuid[], ${col((x) => x.d.lease_token)}::uuid[],
                               ${col((x) => x.d.endpoint_id)}::uuid[], ${col((x) => x.d.auction_id)}::uuid[],
                               ${col((x) => x.d.event_type)}::text[], ${col((x) => x.d.attempt)}::int[],
                               ${col((x) => x.outcome.status ?? null)}::int[], ${col((x) => x.outcome.timeMs)}::int[],
                               ${col((x) => x.outcome.body ?? null)}::text[])
            as t(id, lease_token, endpoint_id, auction_id, event_type, attempt, response_status, time_ms, body)
        ), attempt as (
          insert into public.webhook_delivery_attempts
            (delivery_id, endpoint_id, auction_id, event_type, attempt, status, response_status, response_time_ms,
              response_body)
          select id, endpoint_id, auction_id, event_type, attempt, 'success', response_status, time_ms, body from input
          on conflict (delivery_id, attempt) do nothing
        ), done as (
          update public.webhook_deliveries d
             set status = 'delivered', delivered_at = now(), last_status_code = i.response_status, last_error = null,
                 locked_by = null, locked_until = null, lease_token = null
            from input i
           where d.id = i.id and d.lease_token = i.lease_token
          returning d.endpoint_id
        )
        update public.webhook_endpoints e set consecutive_failures = 0
         where e.id in (select endpoint_id from done) and e.consecutive_failures <> 0`;
    },

    /**
     * Records a failed attempt; then the delivery is retried, fails for good, or (410 Gone) fails and disables the
     * endpoint. A delivery that fails for good counts toward disabling its endpoint after `disableAfter` in a row.
     */
    async recordFailure(
      d: ClaimedDelivery,
      outcome: AttemptOutcome,
      next: FailureNext,
      disableAfter: number,
    ): Promise<void> {
      const delayMs = next.kind === 'retry' ? next.delayMs : 0;
      const final = next.kind !== 'retry';
      const gone = next.kind === 'gone';
      await sql`
        with attempt as (
          insert into public.webhook_delivery_attempts
            (delivery_id, endpoint_id, auction_id, event_type, attempt, status, response_status, response_time_ms,
             response_body, error_message)
          values (${d.id}, ${d.endpoint_id}, ${d.auction_id}, ${d.event_type}, ${d.attempt}, 'failed',
                  ${outcome.status ?? null}, ${outcome.timeMs}, ${outcome.body ?? null}, ${outcome.error ?? null})
          on conflict (delivery_id, attempt) do nothing
        ), done as (
          update public.webhook_deliveries d
             set status = case when ${final} or not (e.is_active or d.is_test) then 'failed' else 'queued' end,
                 next_attempt_at = case when ${final} then now()
                                        else now() + ${delayMs}::int * interval '1 millisecond' end,
                 last_status_code = ${outcome.status ?? null}, last_error = ${outcome.error ?? null},
                 locked_by = null, locked_until = null, lease_token = null
            from public.webhook_endpoints e
           where d.id = ${d.id} and d.lease_token = ${d.lease_token} and e.id = d.endpoint_id
          returning d.endpoint_id, d.status
        )
        update public.webhook_endpoints e
           set consecutive_failures = e.consecutive_failures + 1,
               is_active = not (${gone} or e.consecutive_failures + 1 >= ${disableAfter}::int),
               disabled_reason = case
                 when ${gone} then 'endpoint answered 410 Gone'
                 when e.consecutive_failures + 1 >= ${disableAfter}::int
                   then (e.consecutive_failures + 1) || ' consecutive deliveries failed'
               end
          from done
         where e.id = done.endpoint_id and e.is_active and done.status = 'failed'`;
    },

    async prune(retentionDays: number) {
      const [row] = await sql<{ result: { attempts: number; deliveries: number } }[]>`
        select webhooks.prune_logs(${retentionDays}::int * interval '1 day') as result`;
      return row.result;
    },
  };
}

export type DeliveryStore = ReturnType<typeof createDeliveryStore>;
