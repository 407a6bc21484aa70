// The state of each part of the server status (ok / warning / failing, or off) with a one-line reason, from facts
// the server gathered. Pure: the thresholds live here, once, and docs/console.md repeats them.

export type CheckState = 'ok' | 'warning' | 'failing' | 'off';

export interface Check {
  state: CheckState;
  reason: string;
}

const RANK: Record<CheckState, number> = { off: 0, ok: 1, warning: 2, failing: 3 };

/** The worst of several states (off counts as ok: a part switched off is a choice, not a fault). */
export function worstState(states: CheckState[]): CheckState {
  return states.reduce<CheckState>((worst, s) => (RANK[s] > RANK[worst] ? s : worst), 'ok');
}

const GB = 1_000_000_000;
const DISK_THRESHOLDS = {
  warning: { ratio: 0.1, bytes: 5 * GB },
  failing: { ratio: 0.02, bytes: 1 * GB },
} as const;

/** Short byte counts for the reason lines (the page formats its own numbers). */
export function bytesText(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

/** Short durations for the reason lines: "45 s", "3 min 20 s", "2 h 5 min", "3 d 4 h". */
function durationText(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
  if (s < 86_400)
    return `${Math.floor(s / 3600)} h${Math.floor((s % 3600) / 60) ? ` ${Math.floor((s % 3600) / 60)} min` : ''}`;
  return `${Math.floor(s / 86_400)} d${Math.floor((s % 86_400) / 3600) ? ` ${Math.floor((s % 86_400) / 3600)} h` : ''}`;
}

interface DiskFacts {
  freeBytes: number;
  totalBytes: number;
  /** DATA_DIR's free-space floor (DISK_FREE_FLOOR_MB); 0 or absent when off. */
  floorBytes?: number;
}

/**
 * With a floor: failing under it (uploads, imports and local backups are refused), warning under twice it or under
 * 10 % or 5 GB. Without one: warning under 10 % or 5 GB, failing under 2 % or 1 GB, whichever comes first.
 */
export function diskCheck({ freeBytes, totalBytes, floorBytes = 0 }: DiskFacts): Check {
  const ratio = totalBytes > 0 ? freeBytes / totalBytes : 0;
  const free = `${bytesText(freeBytes)} free of ${bytesText(totalBytes)} (${(ratio * 100).toFixed(1)} %)`;
  const { failing, warning } = DISK_THRESHOLDS;
  if (floorBytes > 0) {
    const floor = `the floor of ${bytesText(floorBytes)}`;
    if (freeBytes < floorBytes)
      return {
        state: 'failing',
        reason: `${free}: under ${floor}, so uploads, CSV imports and local backups are refused`,
      };
    if (freeBytes < 2 * floorBytes)
      return { state: 'warning', reason: `${free}: near ${floor}, under which uploads are refused` };
  } else if (ratio < failing.ratio || freeBytes < failing.bytes)
    return { state: 'failing', reason: `${free}: PostgreSQL stops when the disk is full` };
  if (ratio < warning.ratio || freeBytes < warning.bytes)
    return { state: 'warning', reason: `${free}: under 10 % or 5 GB` };
  return { state: 'ok', reason: free };
}

interface ArchiveFacts {
  /** Failure newer than the last success (isFailing of @auction-ops/backups). */
  failing: boolean;
  failedCount: number;
  lastFailedWal: string | null;
  /** Seconds since the last archived segment; null before the first. */
  lastArchivedAgeSeconds: number | null;
  pendingSegments: number;
  timeoutSeconds: number;
}

interface BaseBackupFacts {
  /** Seconds since the newest complete base backup finished; null when there is none. */
  ageSeconds: number | null;
}

/** Archiving is behind when segments wait longer than this many archive timeouts. */
const ARCHIVE_LAG_TIMEOUTS = 3;
/** A daily schedule plus slack (as the BaseBackupMissing alert of docs/observability.md), and a week plus a day. */
const BASE_BACKUP_WARNING_SECONDS = 26 * 3600;
const BASE_BACKUP_FAILING_SECONDS = 8 * 86_400;

export function archiveCheck(facts: ArchiveFacts): Check {
  const waiting = `${facts.pendingSegments} segment${facts.pendingSegments === 1 ? '' : 's'} waiting in pg_wal`;
  if (facts.failing)
    return {
      state: 'failing',
      reason: `archiving ${facts.lastFailedWal ?? 'a segment'} fails (${facts.failedCount} failures); ${waiting}`,
    };
  const age = facts.lastArchivedAgeSeconds;
  const limit = ARCHIVE_LAG_TIMEOUTS * facts.timeoutSeconds;
  if (age === null)
    return facts.pendingSegments > 0
      ? { state: 'warning', reason: `no segment archived yet; ${waiting}` }
      : { state: 'ok', reason: 'no segment archived yet (nothing written since the start)' };
  // A quiet server archives nothing: an old last archive is only lag when segments wait.
  if (facts.pendingSegments > 0 && age > limit)
    return { state: 'warning', reason: `last segment archived ${durationText(age)} ago; ${waiting}` };
  return { state: 'ok', reason: `last segment archived ${durationText(age)} ago` };
}

export function baseBackupCheck({ ageSeconds }: BaseBackupFacts): Check {
  if (ageSeconds === null)
    return { state: 'warning', reason: 'no base backup yet: the WAL archive alone cannot be restored' };
  const age = `newest base backup ${durationText(ageSeconds)} old`;
  if (ageSeconds > BASE_BACKUP_FAILING_SECONDS) return { state: 'failing', reason: `${age} (over 8 days)` };
  if (ageSeconds > BASE_BACKUP_WARNING_SECONDS) return { state: 'warning', reason: `${age} (over 26 hours)` };
  return { state: 'ok', reason: age };
}

interface DrillFacts {
  /** The last drill's outcome and reason, and seconds since it finished; null when none has run. */
  last: { outcome: 'passed' | 'failed' | 'skipped'; reason: string; ageSeconds: number } | null;
  /** Seconds since the last drill that passed; null when none has. */
  lastSuccessAgeSeconds: number | null;
  /** BACKUP_DRILL_INTERVAL in seconds (0: off). */
  intervalSeconds: number;
}

/**
 * The restore drill: a failed or skipped drill is a warning (the backups are not proven), and so is a last success
 * older than two intervals and an hour (drills stopped happening). None yet is ok: the first is one interval away.
 */
export function drillCheck({ last, lastSuccessAgeSeconds, intervalSeconds }: DrillFacts): Check {
  if (!last)
    return intervalSeconds > 0
      ? { state: 'ok', reason: `no restore drill yet (every ${durationText(intervalSeconds)})` }
      : { state: 'ok', reason: 'no restore drill yet (BACKUP_DRILL_INTERVAL is off)' };
  const ago = durationText(last.ageSeconds);
  if (last.outcome === 'failed') return { state: 'warning', reason: `restore drill failed ${ago} ago: ${last.reason}` };
  if (last.outcome === 'skipped')
    return { state: 'warning', reason: `restore drill skipped ${ago} ago: ${last.reason}` };
  if (intervalSeconds > 0 && lastSuccessAgeSeconds !== null && lastSuccessAgeSeconds > 2 * intervalSeconds + 3600)
    return { state: 'warning', reason: `last restore drill passed ${ago} ago, over two intervals` };
  return { state: 'ok', reason: `restore drill passed ${ago} ago` };
}

/** The parts of a backup (archiving, base backup, drill): the worst one's reason leads. */
export function backupsCheck(...parts: Check[]): Check {
  const ordered = [...parts].sort((a, b) => RANK[b.state] - RANK[a.state]);
  return { state: worstState(parts.map((p) => p.state)), reason: ordered.map((p) => p.reason).join('; ') };
}

interface WebhookFacts {
  due: number;
  /** Seconds the longest-waiting due delivery has been due; null when none is due. */
  oldestDueSeconds: number | null;
  disabledEndpoints: number;
}

const WEBHOOK_WARNING_SECONDS = 5 * 60;
const WEBHOOK_FAILING_SECONDS = 3600;

export function webhookCheck(facts: WebhookFacts): Check {
  const parts: string[] = [];
  const wait = facts.oldestDueSeconds ?? 0;
  parts.push(
    facts.due === 0
      ? 'no delivery waiting'
      : `${facts.due} deliver${facts.due === 1 ? 'y' : 'ies'} due, the oldest for ${durationText(wait)}`,
  );
  if (facts.disabledEndpoints > 0)
    parts.push(`${facts.disabledEndpoints} endpoint${facts.disabledEndpoints === 1 ? '' : 's'} disabled`);
  const state: CheckState =
    wait > WEBHOOK_FAILING_SECONDS
      ? 'failing'
      : wait > WEBHOOK_WARNING_SECONDS || facts.disabledEndpoints > 0
        ? 'warning'
        : 'ok';
  return { state, reason: parts.join('; ') };
}

interface ReplicaFacts {
  healthy: boolean;
  lagMs: number | null;
}

/** A replica is down when its check fails or its lag passed DB_READ_MAX_LAG_MS (reads then go to the primary). */
export function replicaCheck(replica: ReplicaFacts, maxLagMs: number): Check {
  const lag = replica.lagMs === null ? 'lag unknown' : `lag ${durationText(replica.lagMs / 1000)}`;
  if (!replica.healthy)
    return { state: 'failing', reason: `down (${lag}): reads go to the other replicas or the primary` };
  if (replica.lagMs !== null && replica.lagMs > maxLagMs / 2)
    return { state: 'warning', reason: `${lag}, over half of DB_READ_MAX_LAG_MS` };
  return { state: 'ok', reason: `up, ${lag}` };
}

export function replicasCheck(checks: Check[]): Check {
  if (checks.length === 0) return { state: 'off', reason: 'none configured' };
  const down = checks.filter((c) => c.state === 'failing').length;
  const state = down === checks.length ? 'failing' : down > 0 ? 'warning' : worstState(checks.map((c) => c.state));
  return { state, reason: `${checks.length - down} of ${checks.length} up` };
}

interface DatabaseFacts {
  up: boolean;
  connections?: number;
  maxConnections?: number;
}

export function databaseCheck(facts: DatabaseFacts): Check {
  if (!facts.up) return { state: 'failing', reason: 'PostgreSQL does not answer' };
  const { connections = 0, maxConnections = 0 } = facts;
  const used = `${connections} of ${maxConnections} connections`;
  if (maxConnections > 0 && connections > 0.8 * maxConnections)
    return { state: 'warning', reason: `${used} in use (over 80 %)` };
  return { state: 'ok', reason: `up, ${used}` };
}
