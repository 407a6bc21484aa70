// Backups (docs/backups.md): where base backups and the continuous WAL and object archive go, how stale the
// newest unarchived change may be, the unattended schedule with how many base backups to keep, and how often a
// restore drill proves the newest backup (and where its scratch copy goes).
import * as v from 'valibot';
import { cronPatternProblem } from '@auction-ops/backups/schedule';
import { nonEmpty, positiveInt } from './fields.js';

const cronPattern = v.pipe(
  v.string(),
  v.check((pattern) => !cronPatternProblem(pattern), 'must be a cron pattern such as "0 3 * * *"'),
);

const UNIT_SECONDS = { m: 60, h: 3600, d: 86_400 } as const;

/** `off` (0), or a whole number of minutes, hours or days (`30m`, `24h`, `7d`), at least 10 minutes. */
const drillInterval = v.pipe(
  v.string(),
  v.regex(/^(off|\d+[mhd])$/, 'must be off or a duration such as 30m, 24h or 7d'),
  v.transform((s) => (s === 'off' ? 0 : Number(s.slice(0, -1)) * UNIT_SECONDS[s.at(-1) as keyof typeof UNIT_SECONDS])),
  // A drill restores a whole backup: more often than this would keep the machine copying.
  v.check((seconds) => seconds === 0 || seconds >= 600, 'must be off or at least 10m'),
);

export const backupsSettings = {
  BACKUP_TARGET: v.optional(nonEmpty),
  BACKUP_ARCHIVE_TIMEOUT_SECONDS: v.optional(positiveInt, '60'),
  BACKUP_SCHEDULE: v.optional(cronPattern),
  BACKUP_KEEP: v.optional(positiveInt),
  /** Seconds between restore drills (0: off). */
  BACKUP_DRILL_INTERVAL: v.optional(drillInterval, '24h'),
  /** Where a drill's scratch directory is made; DATA_DIR's parent when unset. */
  BACKUP_DRILL_DIR: v.optional(nonEmpty),
};
