// A restore drill: the newest base backup and its WAL restored to an instant just past into a scratch directory,
// started on loopback at low priority, checked against the source as of that instant (drill-checks.ts), stopped and
// removed; the outcome and its duration recorded in the target (drill-record.ts). One drill at a time per database:
// a session advisory lock on the source, so the server's schedule and `auction-ops backup drill` never overlap.
import { chmodSync, copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import postgres from 'postgres';
import { loadSecrets } from '@auction-ops/auth-core';
import { listBackups } from '../backup-manifest.js';
import type { BackupSpaceFloor } from '../backup-space.js';
import type { BackupTarget } from '../backup-target.js';
import { restoreBackup } from '../restore.js';
import { RecoveryFailedError } from '../wal-replay.js';
import { checkLedger, checkObjects, checkRowCounts, checkSignIn } from './drill-checks.js';
import { type DrillChecked, type DrillRecord, writeDrillRecord } from './drill-record.js';
import {
  archiveThroughNow,
  createProbe,
  type Probe,
  removeProbe,
  sourceState,
  type SourceState,
} from './drill-source.js';
import { drillBytes, drillSpaceProblem } from './drill-space.js';
import { lowPriorityStarter } from './low-priority.js';

export interface DrillOptions {
  target: BackupTarget;
  /** Superuser URL of the source (the running embedded cluster), and its DATA_DIR. */
  ownerUrl: string;
  dataDir: string;
  /** BACKUP_DRILL_DIR: where the scratch directory is made; DATA_DIR's parent by default. */
  scratchParent?: string;
  floor?: BackupSpaceFloor;
  /** JWT_SECRET when set (else both sides' secrets.json). */
  jwtSecret?: string;
  /** The source's bytes of an object key (its storage backend); the archive's recorded digests without it. */
  sourceObject?: (key: string) => Promise<Readable>;
  log?: (message: string) => void;
}

export type DrillResult = DrillRecord | { outcome: 'busy'; reason: string };

/** pg_try_advisory_lock's key for drills: any constant no other lock of this service uses. */
const DRILL_LOCK = 0x64_72_69_6c_6c;

const databaseOf = (url: string) => decodeURIComponent(new URL(url).pathname.slice(1)) || 'postgres';
const withDatabase = (url: string, database: string) => {
  const u = new URL(url);
  u.pathname = `/${encodeURIComponent(database)}`;
  return u.toString();
};

/**
 * Why the drill failed. A replay that PostgreSQL stopped names its log, kept in the scratch directory that is about to
 * be removed: the log is kept beside it instead (the newest such failure's), where the message then points.
 */
function failureReason(error: unknown, scratchParent: string): string {
  if (!(error instanceof RecoveryFailedError)) return (error as Error).message;
  const kept = join(scratchParent, '.auction-ops-drill-failed.log');
  try {
    copyFileSync(error.logFile, kept);
    return new RecoveryFailedError(error.reasons, kept).message;
  } catch {
    return `recovery failed: ${error.reasons}`;
  }
}

/** The secret the source's tokens are signed with; undefined where none was ever made (a bare cluster). */
function sourceJwtSecret(options: DrillOptions): string | undefined {
  try {
    return loadSecrets(options.dataDir, options.jwtSecret, { create: false }).jwtSecret;
  } catch {
    return undefined;
  }
}

interface Restored {
  backupId: string;
  checked: DrillChecked;
}

/** The part that needs room: restore, start, check, stop and remove, whatever happens. */
async function restoreAndCheck(
  options: DrillOptions,
  state: SourceState,
  probe: Probe | undefined,
  scratch: string,
): Promise<Restored> {
  const log = options.log ?? (() => {});
  const start = lowPriorityStarter(log);
  const dataDir = join(scratch, 'data');
  const restored = await restoreBackup({
    target: options.target,
    id: 'latest',
    dataDir,
    toTime: state.at.toISOString(),
    startCluster: start,
    log,
  });
  const cluster = await start({ dir: join(dataDir, 'postgres') });
  const sql = postgres(withDatabase(cluster.url, databaseOf(options.ownerUrl)), { max: 2, onnotice: () => {} });
  try {
    log(`checking the restored copy on 127.0.0.1:${cluster.port}`);
    const migrations = await checkLedger(sql, state);
    const rows = await checkRowCounts(sql, state);
    const objects = await checkObjects(sql, dataDir, options.target, options.sourceObject);
    const signIn = await checkSignIn(sql, dataDir, probe, sourceJwtSecret(options), options.jwtSecret);
    return {
      backupId: restored.id,
      checked: { tables: state.counts.length, rows, migrations, objects, sign_in: signIn },
    };
  } finally {
    await sql.end({ timeout: 5 });
    await cluster.stop();
  }
}

export async function runRestoreDrill(options: DrillOptions): Promise<DrillResult> {
  const { target } = options;
  const log = options.log ?? (() => {});
  const sql = postgres(options.ownerUrl, { max: 2, onnotice: () => {}, idle_timeout: 0 });
  const lock = await sql.reserve();
  try {
    const [{ ok }] = await lock`select pg_try_advisory_lock(${DRILL_LOCK}) as ok`;
    if (!ok) return { outcome: 'busy', reason: 'another restore drill is running on this database' };
    const started = new Date();
    const finish = (outcome: DrillRecord['outcome'], reason: string, extra: Partial<DrillRecord> = {}) => {
      const finished = new Date();
      return writeDrillRecord(target, {
        outcome,
        started_at: started.toISOString(),
        finished_at: finished.toISOString(),
        duration_seconds: Math.round((finished.getTime() - started.getTime()) / 100) / 10,
        backup_id: null,
        to_time: null,
        reason,
        checked: null,
        ...extra,
      });
    };
    try {
      const newest = (await listBackups(target)).at(-1);
      if (!newest) return await finish('skipped', `no base backup in ${target.spec} to restore`);
      const scratchParent = options.scratchParent ?? dirname(options.dataDir);
      const bytes = await drillBytes(target, newest);
      const noRoom = await drillSpaceProblem(scratchParent, options.dataDir, bytes, options.floor);
      if (noRoom) return await finish('skipped', noRoom, { backup_id: newest.id });
      const probe = await createProbe(sql);
      let state: SourceState;
      try {
        state = await sourceState(sql);
      } finally {
        // Its commit comes after the instant: the restored copy keeps the probe, the source does not.
        await removeProbe(sql, probe);
      }
      // A commit after the instant (a probe's removal is one; without auth there is none) for replay to stop at.
      await sql.begin((tx) => tx`select pg_current_xact_id()`);
      const wal = await archiveThroughNow(sql);
      log(`drill: the source as of ${state.at.toISOString()} is archived through ${wal}`);
      const scratch = mkdtempSync(join(scratchParent, '.auction-ops-drill-'));
      // As root the restored PostgreSQL runs as the postgres user, which must pass through the scratch directory.
      chmodSync(scratch, 0o711);
      try {
        const done = await restoreAndCheck(options, state, probe, scratch);
        const c = done.checked;
        return await finish(
          'passed',
          `${c.tables} tables (${c.rows} rows), ${c.migrations} migrations, ${c.objects} objects and a sign-in match ` +
            `the source as of ${state.at.toISOString()}`,
          { backup_id: done.backupId, to_time: state.at.toISOString(), checked: c },
        );
      } catch (error) {
        return await finish('failed', failureReason(error, scratchParent), {
          backup_id: newest.id,
          to_time: state.at.toISOString(),
        });
      } finally {
        rmSync(scratch, { recursive: true, force: true });
      }
    } catch (error) {
      return await finish('failed', (error as Error).message);
    }
  } finally {
    await lock`select pg_advisory_unlock(${DRILL_LOCK})`.catch(() => {});
    lock.release();
    await sql.end({ timeout: 5 });
  }
}
