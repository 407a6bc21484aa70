// The backups side of `db upgrade`. A new major is a new cluster (new system identifier) whose WAL segment names
// start again at 000000010000000000000001: in the old target's archive they would collide with the old cluster's
// segments (the archive command refuses different bytes under a taken name, and a restore would fetch the other
// cluster's). So the new cluster gets a new, empty target, and its first base backup is taken there at once.
import { join } from 'node:path';
import {
  archiveSettings,
  createBackup,
  ensureWritable,
  listBackups,
  prepareArchiveDir,
  resolveTarget,
  summaryOf,
  type BackupTarget,
} from '@auction-ops/backups';
import { formatBytes } from '@auction-ops/console/format-bytes';
import { lockDataDir, startEmbeddedPostgres } from '@auction-ops/database';
import type { Config } from '@auction-ops/server-config';
import { UsageError } from '../usage-error.js';

/** The new target, checked before the upgrade starts anything; undefined when no backup is wanted. */
export async function newBackupTarget(
  config: Config,
  spec: string | undefined,
  noBackup: boolean,
): Promise<BackupTarget | undefined> {
  if (noBackup || (!config.BACKUP_TARGET && !spec)) return undefined;
  if (!spec)
    throw new UsageError(
      `BACKUP_TARGET is set: pass --backup-target NEW, an empty target for the upgraded cluster (its WAL cannot ` +
        `share ${config.BACKUP_TARGET} with the old one), or --no-backup`,
    );
  const target = resolveTarget(spec);
  const where = (t: BackupTarget) => t.dir ?? t.spec.replace(/\/+$/, '');
  if (config.BACKUP_TARGET && where(target) === where(resolveTarget(config.BACKUP_TARGET)))
    throw new UsageError(`--backup-target must differ from BACKUP_TARGET (${config.BACKUP_TARGET})`);
  await ensureWritable(target);
  const walFiles = await target.store.list('wal');
  if ((await listBackups(target)).length > 0 || walFiles.length > 0)
    throw new UsageError(`--backup-target ${spec} already holds backups or WAL; name a new, empty one`);
  return target;
}

/** Starts the upgraded cluster archiving to `target`, takes a base backup, stops it. Returns the backup's line. */
export async function firstBackup(config: Config, target: BackupTarget): Promise<string> {
  prepareArchiveDir(target);
  const lock = lockDataDir(config.DATA_DIR);
  try {
    const cluster = await startEmbeddedPostgres({
      dir: join(config.DATA_DIR, 'postgres'),
      settings: archiveSettings(target, config.BACKUP_ARCHIVE_TIMEOUT_SECONDS),
    });
    try {
      const manifest = await createBackup({ ownerUrl: cluster.url, dataDir: config.DATA_DIR, target });
      const s = summaryOf(manifest);
      return `base backup ${s.id} (${formatBytes(s.bytes)}) in ${target.spec}`;
    } finally {
      await cluster.stop();
    }
  } finally {
    lock.release();
    target.store.close();
  }
}
