// While BACKUP_TARGET is set on the embedded cluster: watches the WAL archiver (a failing archive is logged as an
// error every check, with the pending segments), takes the BACKUP_SCHEDULE backups, pruned to BACKUP_KEEP, and
// runs a restore drill every BACKUP_DRILL_INTERVAL; the newest base backup's time and the drills' are metrics.
import {
  archiverState,
  createBackup,
  isFailing,
  resolveTarget,
  runRestoreDrill,
  scheduleBackups,
  scheduleDrills,
  type BackupTarget,
} from '@auction-ops/backups';
import type { StorageService } from '@auction-ops/storage';
import type { ServerContext, Worker } from '../context.js';
import { baseBackupGauge, watchBaseBackups } from './backup-metrics.js';
import { drillMetrics, watchDrills } from './drill-metrics.js';
import { drillOptions, logDrill } from './drill-run.js';

const CHECK_MS = 30_000;

function watchArchiver(ctx: ServerContext, target: BackupTarget): () => void {
  const check = async () => {
    const state = await archiverState(ctx.ownerSql);
    if (!isFailing(state)) return;
    ctx.log.error('backup: WAL archiving is failing; PostgreSQL keeps unarchived WAL in pg_wal until it succeeds', {
      target: target.spec,
      failedSegment: state.lastFailedWal,
      failures: state.failedCount,
      pendingSegments: state.pendingSegments,
      pendingBytes: state.pendingSegments * 16 * 1024 * 1024,
    });
  };
  const timer = setInterval(
    () => check().catch((error) => ctx.log.warn('backup: archiver check failed', { error: String(error) })),
    CHECK_MS,
  );
  timer.unref();
  return () => clearInterval(timer);
}

export async function startBackupWorker(ctx: ServerContext, storage: StorageService): Promise<Worker | undefined> {
  const { config } = ctx;
  const gauge = baseBackupGauge(ctx);
  const drillGauges = drillMetrics(ctx);
  if (!config.BACKUP_TARGET || config.DATABASE_URL) return undefined;
  const target = resolveTarget(config.BACKUP_TARGET);
  const stopWatching = watchArchiver(ctx, target);
  const baseBackups = watchBaseBackups(ctx, target, gauge);
  const drills = watchDrills(ctx, target, drillGauges);
  // One process runs the background work, and the drill's advisory lock keeps `backup drill` from overlapping it.
  const drillSchedule =
    config.BACKUP_DRILL_INTERVAL > 0
      ? scheduleDrills({
          intervalMs: config.BACKUP_DRILL_INTERVAL * 1000,
          target,
          drill: () => runRestoreDrill(drillOptions(ctx, target, storage)),
          onDone: (result) => {
            drills.refresh();
            logDrill(ctx, result);
          },
          onError: (error) => ctx.log.error('backup: restore drill could not run', { error: error.message }),
        })
      : undefined;
  const schedule = config.BACKUP_SCHEDULE
    ? scheduleBackups({
        pattern: config.BACKUP_SCHEDULE,
        keep: config.BACKUP_KEEP,
        target,
        backup: () => createBackup({ ownerUrl: ctx.ownerUrl, dataDir: config.DATA_DIR, target, floor: ctx.diskFloor }),
        onDone: (manifest, pruned) => {
          baseBackups.refresh();
          ctx.log.info('backup: scheduled backup taken', {
            id: manifest.id,
            bytes: manifest.bytes,
            pruned: pruned?.backups,
          });
        },
        onError: (error) =>
          ctx.log.error('backup: scheduled backup failed', { target: target.spec, error: error.message }),
      })
    : undefined;
  return {
    name: 'backups',
    async stop() {
      stopWatching();
      baseBackups.stop();
      drills.stop();
      await schedule?.stop();
      await drillSchedule?.stop();
      target.store.close();
    },
  };
}
