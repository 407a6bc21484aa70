// A restore drill as the server runs it: its own cluster and DATA_DIR as the source, the storage backend's bytes to
// compare objects with, the disk floor; and its outcome logged (a failure as an error: the backups are not proven).
import type { BackupTarget, DrillOptions, DrillResult } from '@auction-ops/backups';
import type { StorageService } from '@auction-ops/storage';
import type { ServerContext } from '../context.js';

export function drillOptions(ctx: ServerContext, target: BackupTarget, storage: StorageService): DrillOptions {
  const { config } = ctx;
  return {
    target,
    ownerUrl: ctx.ownerUrl,
    dataDir: config.DATA_DIR,
    scratchParent: config.BACKUP_DRILL_DIR,
    floor: ctx.diskFloor,
    jwtSecret: config.JWT_SECRET,
    sourceObject: (key) => storage.backend.get(key),
    log: (message) => ctx.log.debug(`backup: ${message}`),
  };
}

export function logDrill(ctx: ServerContext, result: DrillResult): void {
  const fields = { outcome: result.outcome, reason: result.reason };
  if (result.outcome === 'busy') ctx.log.info('backup: restore drill not started', fields);
  else if (result.outcome === 'passed')
    ctx.log.info('backup: restore drill passed', { ...fields, seconds: result.duration_seconds, id: result.backup_id });
  else if (result.outcome === 'skipped') ctx.log.warn('backup: restore drill skipped', fields);
  else ctx.log.error('backup: restore drill failed', { ...fields, id: result.backup_id, to_time: result.to_time });
}
