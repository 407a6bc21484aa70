// Waiting for WAL to reach the archive, for the tests of backups and restores: by the segment's name, with a
// deadline on the archiver's progress rather than on the clock (under load it can be many segments behind).
import type postgres from 'postgres';

/**
 * Whether `lastArchived` (pg_stat_archiver.last_archived_wal) shows segment `wal` archived: the segment itself or a
 * later one (the archiver goes in order). A backup's history file is named after its first segment with a suffix
 * (`...0003.00000028.backup`) and says nothing of that segment.
 */
export function segmentArchived(lastArchived: string | null, wal: string): boolean {
  return !!lastArchived && (lastArchived === wal || lastArchived.slice(0, 24) > wal);
}

/**
 * Waits until segment `wal` is archived; fails only when the archiver has made no progress for `stallMs` (by default
 * two minutes, past its own 60 s wake-up), not after a fixed time.
 */
export async function waitForArchivedSegment(sql: postgres.Sql, wal: string, stallMs = 120_000): Promise<void> {
  let progress: string | null = '';
  let deadline = 0;
  for (;;) {
    const [row] = await sql`select last_archived_wal, last_failed_wal, failed_count from pg_stat_archiver`;
    if (segmentArchived(row!.last_archived_wal, wal)) return;
    if (row!.last_archived_wal !== progress) [progress, deadline] = [row!.last_archived_wal, Date.now() + stallMs];
    if (Date.now() > deadline) throw new Error(`segment ${wal} not archived: ${JSON.stringify(row)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Forces the current segment out and waits until it is archived. */
export async function archiveNow(sql: postgres.Sql): Promise<void> {
  const [{ wal }] = await sql<{ wal: string }[]>`select pg_walfile_name(pg_switch_wal()) as wal`;
  await waitForArchivedSegment(sql, wal);
}
