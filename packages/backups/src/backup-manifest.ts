// A backup's manifest: what it holds and the checksum of every file. Written last, so a backup without one is
// incomplete and is neither listed nor restored.
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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

export function writeManifest(target: BackupTarget, manifest: BackupManifest): void {
  const file = join(target.backupDir(manifest.id), 'manifest.json');
  writeFileSync(`${file}.partial`, `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
  renameSync(`${file}.partial`, file);
}

export function readManifest(target: BackupTarget, id: string): BackupManifest {
  const file = join(target.backupDir(id), 'manifest.json');
  if (!/^[\w-]+$/.test(id) || !existsSync(file)) throw errors.unknownBackup(id, target.spec);
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as BackupManifest;
  } catch {
    throw errors.damaged(id, 'manifest.json');
  }
}

/** Complete backups, oldest first. */
export function listBackups(target: BackupTarget): BackupManifest[] {
  const dir = join(target.root, 'backups');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((id) => existsSync(join(dir, id, 'manifest.json')))
    .map((id) => readManifest(target, id))
    .sort((a, b) => a.finished_at.localeCompare(b.finished_at));
}
