export { BackupError, errors as backupErrors } from './backup-errors.js';
export { resolveTarget, ensureWritable, prepareArchiveDir, type BackupTarget } from './backup-target.js';
export { listBackups, summaryOf, type BackupManifest, type BackupSummary } from './backup-manifest.js';
export { createBackup, type CreateBackupOptions } from './base-backup.js';
export { restoreBackup, type RestoreOptions } from './restore.js';
export { archiveSettings, continuousArchiving, type ArchivingConfig } from './archive-settings.js';
export { archivingBackend, type ArchiveLog } from './object-archive.js';
