// Backups (docs/backups.md): where base backups and the continuous WAL and object archive go, how stale the
// newest unarchived change may be, and the unattended schedule with how many base backups to keep.
import * as v from 'valibot';
import { cronPatternProblem } from '@auction-ops/backups/schedule';
import { nonEmpty, positiveInt } from './fields.js';

const cronPattern = v.pipe(
  v.string(),
  v.check((pattern) => !cronPatternProblem(pattern), 'must be a cron pattern such as "0 3 * * *"'),
);

export const backupsSettings = {
  BACKUP_TARGET: v.optional(nonEmpty),
  BACKUP_ARCHIVE_TIMEOUT_SECONDS: v.optional(positiveInt, '60'),
  BACKUP_SCHEDULE: v.optional(cronPattern),
  BACKUP_KEEP: v.optional(positiveInt),
};
