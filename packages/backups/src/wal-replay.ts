// Point-in-time recovery of a restored cluster: PostgreSQL fetches archived WAL through restore_command, replays
// it up to recovery_target_time (or to the end) and promotes; we wait for that, then take the settings out again.
import { chownSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import postgres from 'postgres';
import { systemUser, type EmbeddedCluster, type EmbeddedOptions } from '@auction-ops/database';
import { errors } from './backup-errors.js';
import type { BackupManifest } from './backup-manifest.js';
import { CLUSTER_DIR } from './data-dir-files.js';
import { restoreCommand } from './wal-segments.js';

/** Under DATA_DIR: the verified segments restore_command hands to PostgreSQL, removed when replay is done. */
export const RESTORE_WAL_DIR = 'postgres/restore-wal';
const BEGIN = '# auction-ops restore: begin';
const END = '# auction-ops restore: end';
const PAST_TARGET = 'recovery ended before configured recovery target was reached';

interface ReplayOptions {
  manifest: BackupManifest;
  dataDir: string;
  toTime?: Date;
  startCluster: (options: EmbeddedOptions) => Promise<EmbeddedCluster>;
  log?: (message: string) => void;
}

const pgTimestamp = (time: Date) => time.toISOString().replace('T', ' ').replace('Z', '+00');
const quote = (value: string) => `'${value.replaceAll("'", "''")}'`;

function chownTree(path: string, uid: number, gid: number): void {
  chownSync(path, uid, gid);
  if (!statSync(path).isDirectory()) return;
  for (const entry of readdirSync(path)) chownTree(join(path, entry), uid, gid);
}

function setRecoverySettings(pgdata: string, settings: string[] | undefined): void {
  const file = join(pgdata, 'postgresql.auto.conf');
  const current = readFileSync(file, 'utf8');
  const start = current.indexOf(BEGIN);
  const kept = start < 0 ? current : current.slice(0, start) + current.slice(current.indexOf(END) + END.length + 1);
  writeFileSync(file, settings ? `${kept}${BEGIN}\n${settings.join('\n')}\n${END}\n` : kept);
}

/** PostgreSQL stopped during the replay: why, from its log, and where that log is. */
export class RecoveryFailedError extends Error {
  override name = 'RecoveryFailedError';
  constructor(
    readonly reasons: string,
    readonly logFile: string,
  ) {
    super(`recovery failed: ${reasons} (see ${logFile})`);
  }
}

/** Why the postmaster stopped, from the last FATAL line of its log. */
function failure(logFile: string, toTime: Date | undefined): Error {
  const log = readFileSync(logFile, 'utf8');
  if (toTime && log.includes(PAST_TARGET))
    return errors.pastArchive(toTime.toISOString(), 'no archived change is as new as that');
  // The FATAL line with the ERROR lines before it (a bad setting is reported as ERROR, then FATAL).
  const reasons = log
    .split('\n')
    .filter((line) => /ERROR|FATAL|PANIC|invalid value/.test(line))
    .slice(-3);
  return new RecoveryFailedError(reasons.join('; ') || 'postgres exited', logFile);
}

export async function replayArchive(options: ReplayOptions): Promise<void> {
  const pgdata = join(options.dataDir, CLUSTER_DIR);
  setRecoverySettings(pgdata, [
    `restore_command = ${quote(restoreCommand(join(options.dataDir, RESTORE_WAL_DIR)))}`,
    "recovery_target_timeline = 'latest'",
    "recovery_target_action = 'promote'",
    // PostgreSQL's check of this setting refuses ISO-8601's "T" and "Z"; the space and +00 forms mean the same.
    ...(options.toTime ? [`recovery_target_time = ${quote(pgTimestamp(options.toTime))}`] : []),
  ]);
  writeFileSync(join(pgdata, 'recovery.signal'), '');
  const owner = systemUser();
  if (owner) chownTree(join(options.dataDir, 'postgres'), owner.uid, owner.gid);
  const logFile = join(options.dataDir, 'postgres', 'postgres.log');
  let cluster: EmbeddedCluster;
  try {
    cluster = await options.startCluster({ dir: join(options.dataDir, 'postgres'), log: options.log });
  } catch {
    throw failure(logFile, options.toTime);
  }
  const sql = postgres(cluster.url, { max: 1, onnotice: () => {} });
  try {
    for (;;) {
      if (cluster.hasExited()) throw failure(logFile, options.toTime);
      const inRecovery = await sql`select pg_is_in_recovery() as yes`
        .then(([row]) => row.yes as boolean)
        .catch(() => true);
      if (!inRecovery) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await sql.end({ timeout: 1 });
    await cluster.stop();
  }
  setRecoverySettings(pgdata, undefined);
  rmSync(join(options.dataDir, RESTORE_WAL_DIR), { recursive: true, force: true });
}
