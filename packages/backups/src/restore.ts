// Restores a backup into a new DATA_DIR: copies and verifies its files, then lets PostgreSQL replay the archived
// WAL (to a time, or to the end) and promote, so the directory is ready for `DATA_DIR=DIR pnpm start`.
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startEmbeddedPostgres } from '@auction-ops/database';
import { copyWithChecksum, fileChecksum } from './checksum.js';
import { errors } from './backup-errors.js';
import { type BackupManifest, listBackups, readManifest, summaryOf } from './backup-manifest.js';
import type { BackupTarget } from './backup-target.js';
import { CLUSTER_DIR } from './data-dir-files.js';
import { replayArchive } from './wal-replay.js';
import { restoreObjects } from './object-archive.js';

export interface RestoreOptions {
  target: BackupTarget;
  /** A backup id, or `latest`. */
  id: string;
  dataDir: string;
  /** ISO-8601: the state as of this instant; absent: everything archived. */
  toTime?: string;
  log?: (message: string) => void;
}

function chooseBackup(target: BackupTarget, id: string): BackupManifest {
  if (id !== 'latest') return readManifest(target, id);
  const newest = listBackups(target).at(-1);
  if (!newest) throw errors.noBackups(target.spec);
  return newest;
}

function checkTime(manifest: BackupManifest, toTime: string | undefined): Date | undefined {
  if (toTime === undefined) return undefined;
  const time = new Date(toTime);
  if (Number.isNaN(time.getTime()) || !/^\d{4}-\d\d-\d\dT/.test(toTime)) throw errors.badTime(toTime);
  if (time < new Date(manifest.finished_at)) throw errors.beforeBackupEnd(toTime, manifest.id, manifest.finished_at);
  if (time > new Date()) throw errors.pastArchive(toTime, 'it is in the future');
  return time;
}

/** Every archived segment the replay may read, checked before anything is written. */
async function verifyArchive(target: BackupTarget, manifest: BackupManifest): Promise<void> {
  if (!existsSync(target.walDir)) return;
  for (const name of readdirSync(target.walDir)) {
    if (name.endsWith('.sha256') || name.endsWith('.partial') || name < manifest.start_wal) continue;
    const recorded = join(target.walDir, `${name}.sha256`);
    const digest = existsSync(recorded) ? readFileSync(recorded, 'utf8').trim() : '';
    if ((await fileChecksum(join(target.walDir, name))) !== digest)
      throw errors.damaged(manifest.id, `archived WAL ${name}`);
  }
}

async function copyBackup(manifest: BackupManifest, target: BackupTarget, dataDir: string): Promise<void> {
  const dir = target.backupDir(manifest.id);
  for (const path of manifest.dirs) mkdirSync(join(dataDir, path), { recursive: true, mode: 0o700 });
  for (const file of manifest.files) {
    const copied = await copyWithChecksum(join(dir, 'files', file.path), join(dataDir, file.path));
    if (copied.sha256 !== file.sha256) throw errors.damaged(manifest.id, file.path);
  }
  for (const file of manifest.wal) {
    if ((await fileChecksum(join(dir, 'wal', file.path))) !== file.sha256)
      throw errors.damaged(manifest.id, `WAL ${file.path}`);
  }
  chmodSync(join(dataDir, CLUSTER_DIR), 0o700);
}

function checkEmpty(dataDir: string): boolean {
  if (!existsSync(dataDir)) return false;
  if (!statSync(dataDir).isDirectory() || readdirSync(dataDir).length > 0) throw errors.dataDirInUse(dataDir);
  return true;
}

export async function restoreBackup(options: RestoreOptions) {
  const { target, dataDir } = options;
  const existed = checkEmpty(dataDir);
  const manifest = chooseBackup(target, options.id);
  const toTime = checkTime(manifest, options.toTime);
  await verifyArchive(target, manifest);
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    await copyBackup(manifest, target, dataDir);
    await restoreObjects(target, dataDir, manifest.id);
    await replayArchive({ target, manifest, dataDir, toTime, startCluster: startEmbeddedPostgres, log: options.log });
  } catch (error) {
    // Nothing left behind: a directory we created goes, one that was empty is emptied again.
    if (existed)
      for (const entry of readdirSync(dataDir)) rmSync(join(dataDir, entry), { recursive: true, force: true });
    else rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  return { ...summaryOf(manifest), data_dir: dataDir, to_time: toTime?.toISOString() ?? null };
}
