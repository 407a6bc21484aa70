// Where backups and the WAL archive live: a directory, laid out as
//   backups/<id>/manifest.json, backups/<id>/files/<path under DATA_DIR>, backups/<id>/wal/<segment>
//   wal/<segment> and wal/<segment>.sha256 (continuous archive, written by PostgreSQL's archive_command)
import { chmodSync, chownSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { systemUser } from '@auction-ops/database';
import { errors } from './backup-errors.js';

export interface BackupTarget {
  /** As the operator named it (shown in messages and in the --json output). */
  readonly spec: string;
  readonly root: string;
  readonly walDir: string;
  backupDir(id: string): string;
}

export function resolveTarget(spec: string | undefined): BackupTarget {
  if (!spec) throw errors.noTarget();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(spec)) throw errors.unsupportedTarget(spec);
  const root = resolve(spec);
  return {
    spec,
    root,
    walDir: join(root, 'wal'),
    backupDir: (id) => join(root, 'backups', id),
  };
}

/** Creates the target's directories and proves they can be written, before any work starts. */
export function ensureWritable(target: BackupTarget): void {
  try {
    mkdirSync(join(target.root, 'backups'), { recursive: true });
    mkdirSync(target.walDir, { recursive: true });
    const probe = join(target.root, `.write-probe-${process.pid}`);
    writeFileSync(probe, '');
    rmSync(probe);
  } catch (error) {
    throw errors.targetNotWritable(target.spec, (error as Error).message);
  }
}

/**
 * As root, PostgreSQL runs as the `postgres` system user, and its archive_command writes wal/ as that user: hand
 * it the directory and let it through the parent.
 */
export function prepareArchiveDir(target: BackupTarget): void {
  ensureWritable(target);
  const owner = systemUser();
  if (!owner) return;
  chownSync(target.walDir, owner.uid, owner.gid);
  for (const dir of [target.root, dirname(target.root)]) chmodSync(dir, statSync(dir).mode | 0o011);
}
