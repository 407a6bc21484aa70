// The outcome of the last restore drill, kept in the backup target beside what it proved (`drills/last.json`): every
// server process, the CLI's status and the next drill read it from there, and a restore of the database (which a
// record in a table would be rolled back with) leaves it alone.
import type { BackupTarget } from '../backup-target.js';

type DrillOutcome = 'passed' | 'failed' | 'skipped';

export interface DrillRecord {
  outcome: DrillOutcome;
  started_at: string;
  finished_at: string;
  duration_seconds: number;
  /** The backup restored and the instant restored to (absent when the drill stopped before choosing them). */
  backup_id: string | null;
  to_time: string | null;
  /** Why it failed or was skipped; what it checked when it passed. */
  reason: string;
  /** What was compared (tables, ledger entries, objects): present when the checks ran. */
  checked: DrillChecked | null;
  /** Carried from drill to drill: the newest pass and how long it took, and every failure so far. */
  last_success_at: string | null;
  last_success_duration_seconds: number | null;
  failures_total: number;
}

export interface DrillChecked {
  tables: number;
  rows: number;
  migrations: number;
  objects: number;
  sign_in: string;
}

const RECORD_KEY = 'drills/last.json';

export async function readDrillRecord(target: BackupTarget): Promise<DrillRecord | undefined> {
  const text = await target.store.getText(RECORD_KEY);
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    // A torn write, or a file of another shape (a target others can write), is as good as none: the next drill
    // writes a whole one, and the metrics and status page never read a field that is not there.
    return isDrillRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

const isTime = (v: unknown) => typeof v === 'string' && !Number.isNaN(Date.parse(v));
const isCount = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/** The fields the metrics and the status page read, of the types they read. */
function isDrillRecord(v: unknown): v is DrillRecord {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const r = v as Record<string, unknown>;
  return (
    (r.outcome === 'passed' || r.outcome === 'failed' || r.outcome === 'skipped') &&
    isTime(r.started_at) &&
    isTime(r.finished_at) &&
    isCount(r.duration_seconds) &&
    typeof r.reason === 'string' &&
    (r.last_success_at === null || isTime(r.last_success_at)) &&
    (r.last_success_duration_seconds === null || isCount(r.last_success_duration_seconds)) &&
    isCount(r.failures_total)
  );
}

type DrillRun = Omit<DrillRecord, 'last_success_at' | 'last_success_duration_seconds' | 'failures_total'>;

/** Writes this drill's result, carrying the newest success and the failure count over from the previous record. */
export async function writeDrillRecord(target: BackupTarget, result: DrillRun): Promise<DrillRecord> {
  const previous = await readDrillRecord(target).catch(() => undefined);
  const passed = result.outcome === 'passed';
  const record: DrillRecord = {
    ...result,
    last_success_at: passed ? result.finished_at : (previous?.last_success_at ?? null),
    last_success_duration_seconds: passed ? result.duration_seconds : (previous?.last_success_duration_seconds ?? null),
    failures_total: (previous?.failures_total ?? 0) + (result.outcome === 'failed' ? 1 : 0),
  };
  await target.store.putText(RECORD_KEY, `${JSON.stringify(record, null, 2)}\n`);
  return record;
}
