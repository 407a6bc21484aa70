// While BACKUP_TARGET is set on the embedded cluster: watches the WAL archiver (a failing archive is logged as an
// error every check, with the pending segments), and takes the BACKUP_SCHEDULE backups, pruned to BACKUP_KEEP; the
// newest base backup's time is a metric.
import {
  archiverState,
  createBackup,
  isFailing,
  resolveTarget,
  scheduleBackups,
  type BackupTarget,
} from '@auction-ops/backups';
import type { ServerContext, Worker } from '../context.js';
import { baseBackupGauge, watchBaseBackups } from './backup-metrics.js';

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

export async function startBackupWorker(ctx: ServerContext): Promise<Worker | undefined> {
  const { config } = ctx;
  const gauge = baseBackupGauge(ctx);
  if (!config.BACKUP_TARGET || config.DATABASE_URL) return undefined;
  const target = resolveTarget(config.BACKUP_TARGET);
  const stopWatching = watchArchiver(ctx, target);
  const baseBackups = watchBaseBackups(ctx, target, gauge);
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
      await baseBackups.stop();
      await schedule?.stop();
      target.store.close();
    },
  };
}
