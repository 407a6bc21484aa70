// The backup commands' refusals: one factory per case, each a message an operator can act on.
import { ISO_INSTANT_FORM } from './iso-instant.js';

export class BackupError extends Error {
  override name = 'BackupError';
}

export const errors = {
  noTarget: () => new BackupError('no backup target: set BACKUP_TARGET or pass --target (a directory)'),
  unsupportedTarget: (spec: string) =>
    new BackupError(`backup target ${spec} is not understood: use a directory or s3://bucket/prefix`),
  targetNotWritable: (target: string, cause: string) =>
    new BackupError(`backup target ${target} cannot be written: ${cause}`),
  belowDiskFloor: (target: string, needed: string, free: string, floor: string) =>
    new BackupError(
      `backup skipped: ${target} is on DATA_DIR's filesystem, and copying about ${needed} there would take its ` +
        `${free} free under the floor of ${floor} kept for PostgreSQL's WAL (DISK_FREE_FLOOR_MB); free space or ` +
        'use a target on another disk',
    ),
  unknownBackup: (id: string, target: string) => new BackupError(`no backup with id "${id}" in ${target}`),
  noBackups: (target: string) => new BackupError(`no backups in ${target}`),
  damaged: (id: string, what: string) =>
    new BackupError(`backup ${id} is damaged: ${what} does not match its checksum`),
  dataDirInUse: (dir: string) =>
    new BackupError(`--data-dir ${dir} exists and is not empty; restore into an absent or empty directory`),
  beforeBackupEnd: (time: string, id: string, finishedAt: string) =>
    new BackupError(`--to-time ${time} is before the end of backup ${id} (${finishedAt}); choose an earlier backup`),
  beforeOldestBackup: (time: string, id: string, finishedAt: string) =>
    new BackupError(
      `--to-time ${time} is before the end of the oldest backup, ${id} (${finishedAt}): no backup reaches back to it`,
    ),
  pastArchive: (time: string, detail: string) =>
    new BackupError(`--to-time ${time} is past what the archive covers (${detail})`),
  badTime: (time: string) => new BackupError(`--to-time ${JSON.stringify(time)} is not ${ISO_INSTANT_FORM}`),
  externalDatabase: () =>
    new BackupError(
      "DATABASE_URL is set: the database is not the embedded one, so backing it up is its operator's job " +
        "(pgBackRest, or the provider's backups); see docs/backups.md",
    ),
};
