// A backup's manifest: what it holds and the checksum of every file. Written last, so a backup without one is
// incomplete and is neither listed nor restored.
import type { BackupTarget } from './backup-target.js';
import { errors } from './backup-errors.js';

export interface ManifestFile {
  /** Relative to DATA_DIR (files/) or to the backup's wal/ directory. */
  path: string;
  size: number;
  sha256: string;
}

/** The document `backup create --json` prints and `backup list --json` lists. */
export interface BackupSummary {
  id: string;
  started_at: string;
  finished_at: string;
  bytes: number;
  target: string;
  start_wal: string;
  stop_wal: string;
}

export interface BackupManifest extends BackupSummary {
  /** Directories to create even when empty (PostgreSQL needs e.g. pg_wal/ and pg_notify/). */
  dirs: string[];
  files: ManifestFile[];
  wal: ManifestFile[];
}

export function summaryOf(manifest: BackupManifest): BackupSummary {
  const { id, started_at, finished_at, bytes, target, start_wal, stop_wal } = manifest;
  return { id, started_at, finished_at, bytes, target, start_wal, stop_wal };
}

const manifestKey = (id: string) => `backups/${id}/manifest.json`;

export async function writeManifest(target: BackupTarget, manifest: BackupManifest): Promise<void> {
  await target.store.putText(manifestKey(manifest.id), `${JSON.stringify(manifest, null, 2)}\n`);
}

export async function readManifest(target: BackupTarget, id: string): Promise<BackupManifest> {
  const text = /^[\w-]+$/.test(id) ? await target.store.getText(manifestKey(id)) : undefined;
  if (text === undefined) throw errors.unknownBackup(id, target.spec);
  try {
    return JSON.parse(text) as BackupManifest;
  } catch {
    throw errors.damaged(id, 'manifest.json');
  }
}

/** Complete backups, oldest first. */
export async function listBackups(target: BackupTarget): Promise<BackupManifest[]> {
  const ids = (await target.store.list('backups'))
    .filter((key) => /^[\w-]+\/manifest\.json$/.test(key))
    .map((key) => key.split('/')[0]);
  const manifests = await Promise.all(ids.map((id) => readManifest(target, id)));
  return manifests.sort((a, b) => a.finished_at.localeCompare(b.finished_at));
}

/**
 * The backup a restore to `time` starts from: the newest that had ended by then (its archived WAL reaches forward to
 * the time; a newer one begins after it). `backups` oldest first, as `listBackups` gives them.
 */
export function newestEndedBy(backups: readonly BackupManifest[], time: Date): BackupManifest | undefined {
  return backups.filter((b) => Date.parse(b.finished_at) <= time.getTime()).at(-1);
}
