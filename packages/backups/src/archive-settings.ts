// The embedded cluster's settings for continuous archiving while BACKUP_TARGET is set. Every process that starts
// the cluster (the server, and CLI commands when no server runs) passes them, so no WAL escapes the archive.
// For an S3 target the command reads the S3_* settings from the environment PostgreSQL inherits from us: no
// secret is ever part of the command (which pg_settings shows).
import { type BackupTarget, prepareArchiveDir, resolveTarget } from './backup-target.js';
import { shellQuote, WAL_COMMAND } from './wal-segments.js';

/** PostgreSQL settings that archive every finished segment to the target, at least every `timeoutSeconds`. */
export function archiveSettings(target: BackupTarget, timeoutSeconds: number): Record<string, string | number> {
  return {
    archive_mode: 'on',
    archive_command: `${shellQuote(process.execPath)} ${shellQuote(WAL_COMMAND)} archive ${shellQuote(target.dir ?? target.spec)} %p %f`,
    archive_timeout: timeoutSeconds,
  };
}

export interface ArchivingConfig {
  BACKUP_TARGET?: string;
  BACKUP_ARCHIVE_TIMEOUT_SECONDS: number;
  DATABASE_URL?: string;
}

/** The settings for an embedded cluster, or undefined when there is nothing to archive to (or no embedded cluster). */
export function continuousArchiving(config: ArchivingConfig): Record<string, string | number> | undefined {
  if (!config.BACKUP_TARGET || config.DATABASE_URL) return undefined;
  const target = resolveTarget(config.BACKUP_TARGET);
  prepareArchiveDir(target);
  return archiveSettings(target, config.BACKUP_ARCHIVE_TIMEOUT_SECONDS);
}
