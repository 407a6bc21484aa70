// Backups (docs/backups.md): where base backups and the continuous WAL archive go, how stale the newest
// unarchived change may be, and the unattended schedule with how many base backups to keep.
import * as v from 'valibot';
import { nonEmpty, positiveInt } from './fields.js';

export const backupsSettings = {
  BACKUP_TARGET: v.optional(nonEmpty),
  BACKUP_ARCHIVE_TIMEOUT_SECONDS: v.optional(positiveInt, '60'),
};
