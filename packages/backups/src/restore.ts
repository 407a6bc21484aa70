// Restores a backup into a new DATA_DIR: copies and verifies its files and the archived WAL it may replay, then
// lets PostgreSQL replay that WAL (to a time, or to the end) and promote, ready for `DATA_DIR=DIR pnpm start`.
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import {
  assertReachable,
  type EmbeddedCluster,
  type EmbeddedOptions,
  startEmbeddedPostgres,
  systemUser,
} from '@auction-ops/database';
import { errors } from './backup-errors.js';
import { type BackupManifest, listBackups, newestEndedBy, readManifest, summaryOf } from './backup-manifest.js';
import type { BackupTarget } from './backup-target.js';
import { CLUSTER_DIR } from './data-dir-files.js';
import { RecoveryFailedError, replayArchive, RESTORE_WAL_DIR } from './wal-replay.js';
import { restoreObjects } from './object-archive.js';

export interface RestoreOptions {
  target: BackupTarget;
  /** A backup id, or `latest`. */
  id: string;
  dataDir: string;
  /** ISO-8601: the state as of this instant; absent: everything archived. */
  toTime?: string;
  log?: (message: string) => void;
  /** Starts the cluster that replays (the restore drill's runs at low priority); startEmbeddedPostgres by default. */
  startCluster?: (options: EmbeddedOptions) => Promise<EmbeddedCluster>;
}

/**
 * The backup to restore: the one named, or for `latest` the newest, or with a time the newest that had ended by
 * then (an older backup's WAL reaches a time a newer backup begins after).
 */
async function chooseBackup(target: BackupTarget, id: string, toTime: string | undefined): Promise<BackupManifest> {
  if (id !== 'latest') return readManifest(target, id);
  const backups = await listBackups(target);
  if (backups.length === 0) throw errors.noBackups(target.spec);
  const time = new Date(toTime ?? Number.NaN);
  // Without a time (or with one checkTime refuses) the newest.
  if (Number.isNaN(time.getTime())) return backups.at(-1)!;
  const backup = newestEndedBy(backups, time);
  if (!backup) throw errors.beforeOldestBackup(toTime!, backups[0]!.id, backups[0]!.finished_at);
  return backup;
}

function checkTime(manifest: BackupManifest, toTime: string | undefined): Date | undefined {
  if (toTime === undefined) return undefined;
  const time = new Date(toTime);
  if (Number.isNaN(time.getTime()) || !/^\d{4}-\d\d-\d\dT/.test(toTime)) throw errors.badTime(toTime);
  if (time < new Date(manifest.finished_at)) throw errors.beforeBackupEnd(toTime, manifest.id, manifest.finished_at);
  if (time > new Date()) throw errors.pastArchive(toTime, 'it is in the future');
  return time;
}

async function fetchChecked(
  target: BackupTarget,
  key: string,
  to: string,
  sha256: string | undefined,
  what: string,
  id: string,
) {
  mkdirSync(dirname(to), { recursive: true, mode: 0o700 });
  const fetched = await target.store.getFile(key, to);
  if (!fetched || fetched.sha256 !== sha256) throw errors.damaged(id, what);
}

/** Files fetched at once, as a backup copies them: most of a cluster's files are small, and the hashing overlaps. */
const PARALLEL_FILES = 4;

async function copyBackup(manifest: BackupManifest, target: BackupTarget, dataDir: string): Promise<void> {
  const prefix = `backups/${manifest.id}`;
  for (const path of manifest.dirs) mkdirSync(join(dataDir, path), { recursive: true, mode: 0o700 });
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < manifest.files.length) {
      const file = manifest.files[next++]!;
      const to = join(dataDir, file.path);
      await fetchChecked(target, `${prefix}/files/${file.path}`, to, file.sha256, file.path, manifest.id).catch(
        (error) => {
          failed = true;
          throw error;
        },
      );
    }
  };
  // Every worker has stopped before a failure is thrown: the caller removes the directory they write into.
  const settled = await Promise.allSettled(Array.from({ length: PARALLEL_FILES }, worker));
  const failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failure) throw failure.reason;
  chmodSync(join(dataDir, CLUSTER_DIR), 0o700);
}

/** The WAL replay may read, fetched and verified before PostgreSQL sees any: the archive's, then the backup's own. */
async function fetchWal(manifest: BackupManifest, target: BackupTarget, dataDir: string): Promise<void> {
  const dir = join(dataDir, RESTORE_WAL_DIR);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const archived = (await target.store.list('wal')).filter(
    (name) => !name.endsWith('.sha256') && name >= manifest.start_wal,
  );
  for (const name of archived) {
    const recorded = (await target.store.getText(`wal/${name}.sha256`))?.trim();
    await fetchChecked(target, `wal/${name}`, join(dir, name), recorded, `archived WAL ${name}`, manifest.id);
  }
  for (const file of manifest.wal) {
    if (existsSync(join(dir, file.path))) continue;
    const key = `backups/${manifest.id}/wal/${file.path}`;
    await fetchChecked(target, key, join(dir, file.path), file.sha256, `WAL ${file.path}`, manifest.id);
  }
}

function checkEmpty(dataDir: string): boolean {
  if (!existsSync(dataDir)) return false;
  if (!statSync(dataDir).isDirectory() || readdirSync(dataDir).length > 0) throw errors.dataDirInUse(dataDir);
  return true;
}

/**
 * The log of a replay that failed, kept beside the data directory that is removed with it (`<dir>.restore-failed.log`)
 * so that the error's "see <log>" names a file that is there.
 */
function keepLog(error: RecoveryFailedError, dataDir: string): RecoveryFailedError {
  const kept = `${resolve(dataDir)}.restore-failed.log`;
  try {
    copyFileSync(error.logFile, kept);
  } catch {
    return error; // no log was written, or nowhere to keep it: the reasons still say what happened
  }
  return new RecoveryFailedError(error.reasons, kept);
}

export async function restoreBackup(options: RestoreOptions) {
  const { target, dataDir } = options;
  const existed = checkEmpty(dataDir);
  const manifest = await chooseBackup(target, options.id, options.toTime);
  const toTime = checkTime(manifest, options.toTime);
  // As root, PostgreSQL replays as its own user: it must reach the directory (checked before anything is copied).
  const owner = systemUser();
  if (owner) assertReachable(dirname(resolve(dataDir)), owner, 'The restored PostgreSQL');
  // Each step says what it is about to do: a restore is seconds to minutes of copying and replaying.
  const log = options.log ?? (() => {});
  const started = Date.now();
  const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const megabytes = (manifest.bytes / 1024 / 1024).toFixed(1);
    log(`copying backup ${manifest.id}: ${manifest.files.length} files, ${megabytes} MB, each checked`);
    await copyBackup(manifest, target, dataDir);
    log(`fetching and checking the archived WAL since ${manifest.start_wal} (${elapsed()})`);
    await fetchWal(manifest, target, dataDir);
    log(`restoring the stored objects (${elapsed()})`);
    await restoreObjects(target, dataDir, manifest.id);
    const until = toTime ? `up to ${toTime.toISOString()}` : 'to the end of the archive';
    log(`PostgreSQL replays the WAL ${until} (${elapsed()})`);
    await replayArchive({
      manifest,
      dataDir,
      toTime,
      startCluster: options.startCluster ?? startEmbeddedPostgres,
      log,
    });
    log(`replayed and promoted (${elapsed()})`);
  } catch (caught) {
    const error = caught instanceof RecoveryFailedError ? keepLog(caught, dataDir) : caught;
    // Nothing left behind but that log: a directory we created goes, one that was empty is emptied again.
    if (existed)
      for (const entry of readdirSync(dataDir)) rmSync(join(dataDir, entry), { recursive: true, force: true });
    else rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  return { ...summaryOf(manifest), data_dir: dataDir, to_time: toTime?.toISOString() ?? null };
}
