// The facts behind the console's states (backups, WAL archiving and restore drills, webhook backlog, disk, read
// replicas), read per status request and judged by @auction-ops/console's status-checks. Listing base backups reads
// every manifest (S3 requests on an S3 target), so that fact is kept for a minute; the drill record is one small
// file, read each time (a drill just run by `auction-ops backup drill` shows at once).
import {
  archiverState,
  type BackupTarget,
  type DrillRecord,
  isFailing,
  listBackups,
  readDrillRecord,
  resolveTarget,
} from '@auction-ops/backups';
import {
  archiveCheck,
  backupsCheck,
  baseBackupCheck,
  type Check,
  diskCheck,
  drillCheck,
  replicaCheck,
  replicasCheck,
  webhookCheck,
} from '@auction-ops/console';
import type { DiskFloor } from '@auction-ops/database';
import type { ServerContext } from '../context.js';

const BASE_BACKUP_CACHE_MS = 60_000;
const DISABLED_LISTED = 20;

const secondsSince = (at: Date | string | null): number | null =>
  at === null ? null : Math.max(0, (Date.now() - new Date(at).getTime()) / 1000);

type BackupsStatus = Check & Record<string, unknown>;

type NewestBackup = { id: string; finished_at: string; bytes: number } | null;

function newestBaseBackup(target: BackupTarget): { get(): Promise<NewestBackup>; forget(): void } {
  let cached: { at: number; value: Promise<NewestBackup> } | undefined;
  const get = () => {
    if (!cached || Date.now() - cached.at > BASE_BACKUP_CACHE_MS) {
      const value = listBackups(target).then((all) => {
        const last = all.at(-1);
        return last ? { id: last.id, finished_at: last.finished_at, bytes: last.bytes } : null;
      });
      // A failed listing is not kept: the next request tries again.
      value.catch(() => {
        cached = undefined;
      });
      cached = { at: Date.now(), value };
    }
    return cached.value;
  };
  return {
    get,
    forget: () => {
      cached = undefined;
    },
  };
}

/** The restore drill's part: its state, and the record's fields the page shows. */
async function drillStatus(target: BackupTarget, intervalSeconds: number): Promise<Check & Record<string, unknown>> {
  let record: DrillRecord | undefined;
  try {
    record = await readDrillRecord(target);
  } catch (error) {
    return { state: 'warning', reason: `reading the restore drill record failed: ${String(error)}` };
  }
  const check = drillCheck({
    last: record
      ? { outcome: record.outcome, reason: record.reason, ageSeconds: secondsSince(record.finished_at) ?? 0 }
      : null,
    lastSuccessAgeSeconds: record ? secondsSince(record.last_success_at) : null,
    intervalSeconds,
  });
  // The record's own reason is in the check's; the check's state and reason win.
  return { ...(record ?? {}), ...check, interval_seconds: intervalSeconds };
}

/**
 * What the backups part reads: off without BACKUP_TARGET, not managed here on an external database. `changed` is
 * called after a backup taken from the console, so the next status lists it.
 */
export function backupsStatusOf(ctx: ServerContext): { read(): Promise<BackupsStatus>; changed(): void } {
  const { config } = ctx;
  const changed = () => {};
  if (!config.BACKUP_TARGET)
    return {
      read: async () => ({ state: 'off', reason: 'off: BACKUP_TARGET is not set, so no backups are taken' }),
      changed,
    };
  if (config.DATABASE_URL)
    return {
      read: async () => ({
        state: 'off',
        reason: 'not managed here: the database is external (DATABASE_URL); back it up where it runs',
      }),
      changed,
    };
  const target = resolveTarget(config.BACKUP_TARGET);
  const newest = newestBaseBackup(target);
  const read = async (): Promise<BackupsStatus> => {
    const archiver = await archiverState(ctx.ownerSql);
    const archive = archiveCheck({
      failing: isFailing(archiver),
      failedCount: archiver.failedCount,
      lastFailedWal: archiver.lastFailedWal,
      lastArchivedAgeSeconds: secondsSince(archiver.lastArchivedAt),
      pendingSegments: archiver.pendingSegments,
      timeoutSeconds: config.BACKUP_ARCHIVE_TIMEOUT_SECONDS,
    });
    let base: NewestBackup;
    let baseCheck: Check;
    try {
      base = await newest.get();
      baseCheck = baseBackupCheck({ ageSeconds: base ? secondsSince(base.finished_at) : null });
    } catch (error) {
      base = null;
      baseCheck = { state: 'failing', reason: `listing the base backups failed: ${String(error)}` };
    }
    const drill = await drillStatus(target, config.BACKUP_DRILL_INTERVAL);
    return {
      ...backupsCheck(archive, baseCheck, drill),
      archiving: {
        ...archive,
        last_archived_at: archiver.lastArchivedAt?.toISOString() ?? null,
        last_failed_at: archiver.lastFailedAt?.toISOString() ?? null,
        last_failed_wal: archiver.lastFailedWal,
        failed_count: archiver.failedCount,
        pending_segments: archiver.pendingSegments,
        // Each unarchived segment is one 16 MB WAL file kept in pg_wal.
        pending_bytes: archiver.pendingSegments * 16 * 1024 * 1024,
        timeout_seconds: config.BACKUP_ARCHIVE_TIMEOUT_SECONDS,
      },
      base_backup: { ...baseCheck, ...(base ?? {}) },
      drill,
    };
  };
  return { read, changed: newest.forget };
}

export async function webhooksStatusOf(ctx: ServerContext): Promise<Check & Record<string, unknown>> {
  const [backlog] = await ctx.ownerSql`
    select count(*)::int as due, min(next_attempt_at) as oldest_due_at
      from public.webhook_deliveries where status = 'queued' and next_attempt_at <= now()`;
  const disabled = await ctx.ownerSql`
    select e.url, a.name as auction, e.disabled_reason as reason, e.disabled_at, count(*) over ()::int as total
      from public.webhook_endpoints e join public.auctions a on a.id = e.auction_id
     where not e.is_active order by e.disabled_at desc nulls last limit ${DISABLED_LISTED}`;
  const oldestDueSeconds = secondsSince(backlog.oldest_due_at);
  const total = disabled[0]?.total ?? 0;
  return {
    ...webhookCheck({ due: backlog.due, oldestDueSeconds, disabledEndpoints: total }),
    due: backlog.due,
    oldest_due_seconds: oldestDueSeconds === null ? null : Math.round(oldestDueSeconds),
    disabled_endpoints: total,
    disabled: disabled.map((e) => ({
      url: e.url,
      auction: e.auction,
      reason: e.reason,
      disabled_at: e.disabled_at?.toISOString() ?? null,
    })),
  };
}

/**
 * The filesystem holding DATA_DIR (its nearest existing parent before the first start), as the free-space floor
 * last read it (at most a second old), with the floor and whether writes are being refused now.
 */
export function diskStatusOf(floor: DiskFloor): Check & Record<string, unknown> {
  const { freeBytes, totalBytes, floorBytes, path } = floor.reading();
  return {
    ...diskCheck({ freeBytes, totalBytes, floorBytes }),
    path,
    free_bytes: freeBytes,
    total_bytes: totalBytes,
    floor_bytes: floorBytes,
    refusing_writes: floor.below(),
    refusals: floor.counts().refusals,
  };
}

export function replicasStatusOf(ctx: ServerContext): { check: Check; replicas: (Check & Record<string, unknown>)[] } {
  const replicas = ctx.replicas.status().map((r, i) => ({
    replica: i + 1,
    healthy: r.healthy,
    lag_ms: r.lagMs,
    ...replicaCheck(r, ctx.config.DB_READ_MAX_LAG_MS),
  }));
  return { check: replicasCheck(replicas), replicas };
}
