// Watches PostgreSQL's archiver. When archive_command fails, PostgreSQL keeps retrying and keeps every
// unarchived segment in pg_wal (writes go on; the disk fills). We say so loudly, with how much is waiting.
import type postgres from 'postgres';

export interface ArchiverState {
  failedCount: number;
  lastFailedWal: string | null;
  lastFailedAt: Date | null;
  lastArchivedAt: Date | null;
  /** Segments finished but not yet archived (pg_wal/archive_status/*.ready). */
  pendingSegments: number;
}

export async function archiverState(sql: postgres.Sql): Promise<ArchiverState> {
  const [row] = await sql`
    select a.failed_count::int as failed_count, a.last_failed_wal, a.last_failed_time, a.last_archived_time,
      (select count(*)::int from pg_ls_archive_statusdir() where name like '%.ready') as pending
    from pg_stat_archiver a`;
  return {
    failedCount: row.failed_count,
    lastFailedWal: row.last_failed_wal,
    lastFailedAt: row.last_failed_time,
    lastArchivedAt: row.last_archived_time,
    pendingSegments: row.pending,
  };
}

/** Whether archiving is failing now: a failure newer than the last success. */
export function isFailing(state: ArchiverState): boolean {
  return Boolean(state.lastFailedAt && (!state.lastArchivedAt || state.lastFailedAt > state.lastArchivedAt));
}
