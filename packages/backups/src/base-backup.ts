// An online base backup of the embedded cluster with PostgreSQL's low-level API (pg_backup_start/stop on one
// session), plus the rest of DATA_DIR. The embedded binaries ship no pg_basebackup, so we copy the files
// ourselves; the WAL from start to stop goes into the backup too, so it restores without the continuous archive.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { CLUSTER_DIR, listDataDir } from './data-dir-files.js';
import { type BackupTarget, ensureWritable } from './backup-target.js';
import { type BackupManifest, type ManifestFile, writeManifest } from './backup-manifest.js';
import { segmentRange } from './wal-segments.js';
import { type BackupSpaceFloor, checkBackupSpace } from './backup-space.js';

export interface CreateBackupOptions {
  /** Superuser URL of the running embedded cluster. */
  ownerUrl: string;
  /** DATA_DIR: the cluster is in postgres/data below it. */
  dataDir: string;
  target: BackupTarget;
  /** DATA_DIR's free-space floor: a directory target on its filesystem is refused under it (backup-space.ts). */
  floor?: BackupSpaceFloor;
}

function newBackupId(now: Date): string {
  return `${now.toISOString().replace(/[-:]/g, '').replace('.', '')}-${randomBytes(2).toString('hex')}`;
}

/** Files copied at once: overlaps the reads, writes and hashing of small files (most of a cluster's files). */
const PARALLEL_FILES = 4;

async function copyFiles(options: CreateBackupOptions, prefix: string, paths: string[]): Promise<ManifestFile[]> {
  const copied: ManifestFile[] = [];
  let next = 0;
  const worker = async () => {
    while (next < paths.length) {
      const path = paths[next++];
      try {
        copied.push({
          path,
          ...(await options.target.store.putFile(`${prefix}/${path}`, join(options.dataDir, path))),
        });
      } catch (error) {
        // Tables dropped and upload spools removed while we copy: WAL replay recreates what the database needs.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: PARALLEL_FILES }, worker));
  return copied;
}

async function putChecked(target: BackupTarget, prefix: string, path: string, text: string): Promise<ManifestFile> {
  await target.store.putText(`${prefix}/${path}`, text);
  return { path, size: Buffer.byteLength(text), sha256: createHash('sha256').update(text).digest('hex') };
}

/** The segments the backup needs, from pg_wal or (already archived and recycled) from the continuous archive. */
async function copyWal(options: CreateBackupOptions, prefix: string, first: string, last: string) {
  const { store } = options.target;
  const pgWal = join(options.dataDir, CLUSTER_DIR, 'pg_wal');
  const spool = mkdtempSync(join(tmpdir(), 'auction-ops-backup-wal-'));
  const wal: ManifestFile[] = [];
  try {
    for (const name of segmentRange(first, last)) {
      let source = join(pgWal, name);
      if (!existsSync(source)) {
        source = join(spool, name);
        if (!(await store.getFile(`wal/${name}`, source)))
          throw new Error(`WAL segment ${name} needed by the backup is neither in pg_wal nor archived`);
      }
      const copied = await store.putFile(`${prefix}/${name}`, source);
      await store.putText(`${prefix}/${name}.sha256`, `${copied.sha256}\n`);
      wal.push({ path: name, ...copied });
    }
  } finally {
    rmSync(spool, { recursive: true, force: true });
  }
  return wal;
}

/** The channel a finished base backup is announced on (its id as the payload). */
export const BASE_BACKUP_CHANNEL = 'auction_ops_base_backup';

export async function createBackup(options: CreateBackupOptions): Promise<BackupManifest> {
  const { target } = options;
  checkBackupSpace(target, options.dataDir, options.floor);
  await ensureWritable(target);
  const startedAt = new Date();
  const id = newBackupId(startedAt);
  const prefix = `backups/${id}`;
  // The low-level API ties the backup to this session: one connection from start to stop.
  const sql = postgres(options.ownerUrl, { max: 1, onnotice: () => {}, idle_timeout: 0 });
  try {
    const [start] = await sql`select pg_walfile_name(lsn) as wal from pg_backup_start(${id}, true) as lsn`;
    const listing = listDataDir(options.dataDir);
    const files = await copyFiles(options, `${prefix}/files`, listing.files);
    // wait_for_archive=false: a failing archive must not hang the backup; the WAL it needs is copied below.
    const [stop] = await sql`
      select pg_walfile_name(lsn) as wal, labelfile, spcmapfile from pg_backup_stop(false)`;
    files.push(await putChecked(target, `${prefix}/files`, `${CLUSTER_DIR}/backup_label`, stop.labelfile));
    if (stop.spcmapfile)
      files.push(await putChecked(target, `${prefix}/files`, `${CLUSTER_DIR}/tablespace_map`, stop.spcmapfile));
    const wal = await copyWal(options, `${prefix}/wal`, start.wal, stop.wal);
    const manifest: BackupManifest = {
      id,
      started_at: startedAt.toISOString(),
      finished_at: new Date().toISOString(),
      bytes: [...files, ...wal].reduce((sum, file) => sum + file.size, 0),
      target: target.spec,
      start_wal: start.wal,
      stop_wal: stop.wal,
      dirs: listing.dirs,
      files,
      wal,
    };
    await writeManifest(target, manifest);
    // Whoever took it (the CLI, the console, the schedule), a server on this database lists the target again at
    // once: its backup_base_last_success_timestamp_seconds follows the target, the one source of that figure. A
    // backup that is written is not failed by its announcement (the server still lists the target every few minutes).
    await sql`select pg_notify(${BASE_BACKUP_CHANNEL}, ${id})`.catch(() => {});
    return manifest;
  } catch (error) {
    await target.store.removePrefix(prefix).catch(() => {});
    throw error;
  } finally {
    await sql.end({ timeout: 5 });
  }
}
