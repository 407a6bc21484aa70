// Gauges of the work waiting in PostgreSQL (and the WAL archiver's counter), read when scraped by one process only
// (they describe the whole server, so several processes reporting them would count each row several times). Each
// query reads a partial index or a system view; a statement timeout keeps a scrape from waiting on a busy database.
import type postgres from 'postgres';
import type { Registry } from 'prom-client';
import { counterOnScrape, gaugeOnScrape } from './server-metrics.js';

/** One round trip for every queue: the values, in the order of QUEUES. */
const QUEUE_SQL = `
select
  (select count(*) from public.webhook_deliveries where status = 'queued')::float8 as webhook_pending,
  coalesce(extract(epoch from now() - (select min(created_at) from public.webhook_deliveries
    where status = 'queued')), 0)::float8 as webhook_oldest,
  (select count(*) from notifications.push_jobs where status = 'queued')::float8 as push_pending,
  coalesce(extract(epoch from now() - (select min(next_attempt_at) from notifications.push_jobs
    where status = 'queued' and next_attempt_at <= now())), 0)::float8 as push_oldest,
  (select count(*) from auth.mail_outbox)::float8 as mail_outbox,
  (select count(*) from reporting_data.imports)::float8 as imports_running,
  coalesce(extract(epoch from now() - (select min(started_at) from reporting_data.imports)), 0)::float8
    as imports_oldest,
  (select count(*) from realtime.connections)::float8 as realtime_connections,
  coalesce((select max(pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)) from pg_replication_slots
    where slot_name like 'auction_ops_rt_%'), 0)::float8 as capture_lag,
  -- null (no sample) until the first segment is archived: an age of 0 would read as "archived just now".
  (select extract(epoch from now() - last_archived_time) from pg_stat_archiver)::float8 as archive_age,
  (select failed_count from pg_stat_archiver)::float8 as archive_failed`;

type Row = Record<string, number | null>;

const QUEUES: Array<[column: string, name: string, help: string]> = [
  ['webhook_pending', 'webhook_deliveries_pending', 'Webhook deliveries queued (due now or waiting for a retry)'],
  ['webhook_oldest', 'webhook_deliveries_oldest_pending_age_seconds', 'Age of the oldest queued webhook delivery'],
  ['push_pending', 'push_jobs_pending', 'Push notification jobs queued'],
  ['push_oldest', 'push_jobs_oldest_due_age_seconds', 'How long the longest-due push job has waited'],
  ['mail_outbox', 'mail_outbox_messages', 'Messages in the local mail outbox (MAIL_PROVIDER outbox)'],
  ['imports_running', 'imports_running', 'CSV imports in progress'],
  ['imports_oldest', 'imports_oldest_running_age_seconds', 'Age of the oldest import in progress'],
  ['realtime_connections', 'realtime_connections', 'Open realtime WebSocket connections of every process'],
  ['capture_lag', 'realtime_change_capture_lag_bytes', 'WAL not yet confirmed by the furthest-behind capture slot'],
  ['archive_age', 'backup_archive_last_success_age_seconds', 'Seconds since the last WAL segment was archived'],
];

export function registerQueueGauges(registry: Registry, sql: postgres.Sql): void {
  // One query serves every gauge of a scrape: the first gauge collected starts it, the others share it.
  let current: Promise<Row> | undefined;
  const read = () => {
    current ??= sql
      .begin(async (tx) => {
        await tx`set local statement_timeout = 2000`;
        const [row] = await tx.unsafe<Row[]>(QUEUE_SQL);
        return row as Row;
      })
      // A failed read leaves the gauges out of this scrape rather than failing the whole scrape.
      .catch(() => ({}) as Row)
      .finally(() => setImmediate(() => (current = undefined)));
    return current;
  };
  const columnValue = async (column: string) => {
    const value = (await read())[column];
    return value === null || value === undefined ? undefined : Number(value);
  };
  for (const [column, name, help] of QUEUES) gaugeOnScrape(registry, { name, help }, () => columnValue(column));
  // PostgreSQL's own cumulative count (it restarts from 0 only when its statistics are reset, which rate() reads as
  // a counter reset).
  counterOnScrape(
    registry,
    { name: 'backup_archive_failures_total', help: 'WAL archiving failures since statistics were reset' },
    () => columnValue('archive_failed'),
  );
}

const POOL_SQL = `
select regexp_replace(application_name, ' w[0-9]+ pid [0-9]+$', '') as pool,
  coalesce(state, 'unknown') as state, count(*)::float8 as n
from pg_stat_activity
where datname = current_database() and application_name like 'auction-ops%'
group by 1, 2`;

/**
 * Connections of the server's pools as PostgreSQL sees them (pool: the application name without the process
 * suffix; state: active, idle, idle in transaction). Every process's connections are counted by one query.
 */
export function registerPoolGauges(registry: Registry, sql: postgres.Sql): void {
  gaugeOnScrape(
    registry,
    {
      name: 'db_pool_connections',
      help: 'Database connections of the server by pool and state (active = in use)',
      labelNames: ['pool', 'state'],
    },
    async () => {
      const rows = await sql.unsafe<Array<{ pool: string; state: string; n: number }>>(POOL_SQL).catch(() => []);
      return rows.map((r) => [{ pool: r.pool, state: r.state }, r.n] as [Record<string, string>, number]);
    },
  );
}
