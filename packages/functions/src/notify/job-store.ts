// SQL of the push job queue (notifications.push_jobs): claiming due jobs under a lease with FOR UPDATE SKIP
// LOCKED, recording progress (tokens the provider accepted) and the final outcome.
import type postgres from 'postgres';

type JobKind = 'chat_message' | 'submission';

export interface PushJob {
  id: string;
  kind: JobKind;
  subject_id: string;
  auction_id: string;
  payload: Record<string, unknown>;
  status: 'queued' | 'sent' | 'failed';
  attempts: number;
  delivered_tokens: string[];
  removed_tokens: number;
  result: Record<string, unknown> | null;
}

const COLUMNS = 'id, kind, subject_id, auction_id, payload, status, attempts, delivered_tokens, removed_tokens, result';

export function createJobStore(sql: postgres.Sql) {
  return {
    /** Claims up to `limit` due jobs for `worker` until the lease runs out. */
    async claim(worker: string, limit: number, leaseMs: number): Promise<PushJob[]> {
      const rows = await sql.unsafe<PushJob[]>(
        `update notifications.push_jobs j
            set locked_by = $1, locked_until = now() + make_interval(secs => $3::float8 / 1000),
                attempts = j.attempts + 1
          where j.id in (select id from notifications.push_jobs
                          where status = 'queued' and next_attempt_at <= now()
                            and (locked_until is null or locked_until < now())
                          order by next_attempt_at limit $2 for update skip locked)
          returning ${COLUMNS}`,
        [worker, limit, leaseMs],
      );
      return [...rows];
    },

    /** Claims one job (the endpoint's run); undefined when it is done or leased by someone else. */
    async claimOne(id: string, worker: string, leaseMs: number): Promise<PushJob | undefined> {
      const [row] = await sql.unsafe<PushJob[]>(
        `update notifications.push_jobs j
            set locked_by = $2, locked_until = now() + make_interval(secs => $3::float8 / 1000),
                attempts = j.attempts + 1,
                status = 'queued'
          where j.id = (select id from notifications.push_jobs where id = $1 and status <> 'sent'
                          and (locked_until is null or locked_until < now()) for update skip locked)
          returning ${COLUMNS}`,
        [id, worker, leaseMs],
      );
      return row;
    },

    /** Finds or creates the job of a subject (a message notified through the endpoint before the worker got to it). */
    async ensure(kind: JobKind, subjectId: string, auctionId: string): Promise<PushJob> {
      await sql`insert into notifications.push_jobs (kind, subject_id, auction_id)
                values (${kind}, ${subjectId}, ${auctionId})
                on conflict (kind, subject_id) do nothing`;
      const [row] = await sql.unsafe<PushJob[]>(
        `select ${COLUMNS} from notifications.push_jobs where kind = $1 and subject_id = $2`,
        [kind, subjectId],
      );
      return row;
    },

    async get(kind: JobKind, subjectId: string): Promise<PushJob | undefined> {
      const [row] = await sql.unsafe<PushJob[]>(
        `select ${COLUMNS} from notifications.push_jobs where kind = $1 and subject_id = $2`,
        [kind, subjectId],
      );
      return row;
    },

    /** Adds accepted tokens and extends the lease; false when the lease was lost to another worker. */
    async progress(job: PushJob, worker: string, delivered: string[], removed: number, leaseMs: number) {
      const rows = await sql`
        update notifications.push_jobs
           set delivered_tokens = delivered_tokens || ${delivered}::text[],
               removed_tokens = removed_tokens + ${removed},
               locked_until = now() + make_interval(secs => ${leaseMs}::float8 / 1000)
         where id = ${job.id} and locked_by = ${worker} and status = 'queued'`;
      return rows.count === 1;
    },

    async complete(job: PushJob, worker: string, result: Record<string, unknown>) {
      await sql`
        update notifications.push_jobs
           set status = 'sent', sent_at = now(), result = ${sql.json(result as postgres.JSONValue)}, locked_by = null,
               locked_until = null, last_error = null
         where id = ${job.id} and locked_by = ${worker}`;
    },

    async retryLater(job: PushJob, worker: string, error: string, delayMs: number, final: boolean) {
      await sql`
        update notifications.push_jobs
           set status = ${final ? 'failed' : 'queued'}, last_error = ${error.slice(0, 1000)}, locked_by = null,
               locked_until = null, next_attempt_at = now() + make_interval(secs => ${delayMs}::float8 / 1000)
         where id = ${job.id} and locked_by = ${worker}`;
    },

    /** Milliseconds until the next queued job is due (0: now), or undefined when none is queued. */
    async nextDueInMs(): Promise<number | undefined> {
      const [row] = await sql<Array<{ ms: number | null }>>`
        select extract(epoch from min(greatest(next_attempt_at, coalesce(locked_until, next_attempt_at))) - now())
               * 1000 as ms
          from notifications.push_jobs where status = 'queued'`;
      return row?.ms == null ? undefined : Math.max(0, Number(row.ms));
    },

    /** Deletes finished jobs older than the retention, so the queue stays small. */
    async prune(olderThanDays: number): Promise<number> {
      const rows = await sql`
        delete from notifications.push_jobs
         where status <> 'queued' and coalesce(sent_at, created_at) < now() - make_interval(days => ${olderThanDays})`;
      return rows.count;
    },
  };
}

export type JobStore = ReturnType<typeof createJobStore>;
