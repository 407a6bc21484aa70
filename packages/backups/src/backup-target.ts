// Where backups and the archive live: a directory or `s3://bucket/prefix`, laid out as
//   backups/<id>/manifest.json, backups/<id>/files/<path under DATA_DIR>, backups/<id>/wal/<segment>
//   wal/<segment> (+ .sha256)         the continuous WAL archive, written by PostgreSQL's archive_command
//   objects/<bucket>/<version> (+ .sha256)   stored objects, archived as they are written
import { chmodSync, chownSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { systemUser } from '@auction-ops/database';
import { errors } from './backup-errors.js';
import type { BackupStore } from './backup-store.js';
import { createDirStore } from './dir-store.js';
import { createS3Store, s3SettingsFromEnv } from './s3-store.js';
import { makeDirsSync } from './target-dirs.js';

export interface BackupTarget {
  /** As the operator named it (shown in messages and in the --json output). */
  readonly spec: string;
  readonly store: BackupStore;
  /** The directory of a directory target; undefined for S3. */
  readonly dir?: string;
}

export function resolveTarget(spec: string | undefined, env = process.env): BackupTarget {
  if (!spec) throw errors.noTarget();
  if (spec.startsWith('s3://')) {
    if (!/^s3:\/\/[a-z0-9][a-z0-9.-]+(\/.*)?$/.test(spec)) throw errors.unsupportedTarget(spec);
    return { spec, store: createS3Store(spec, s3SettingsFromEnv(env)) };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(spec)) throw errors.unsupportedTarget(spec);
  const dir = resolve(spec);
  return { spec, dir, store: createDirStore(spec, dir) };
}

/** How long the write probe may take: a target that does not answer (a hung mount) is an error, not a wait. */
const PROBE_TIMEOUT_MS = 30_000;

/** Proves the target can be written before any work starts. */
export async function ensureWritable(target: BackupTarget, timeoutMs = PROBE_TIMEOUT_MS): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
  });
  try {
    await Promise.race([
      (async () => {
        await target.store.putText(`.write-probe/${process.pid}`, '');
        await target.store.removePrefix('.write-probe');
      })(),
      timeout,
    ]);
  } catch (error) {
    throw errors.targetNotWritable(target.spec, (error as Error).message);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * As root, PostgreSQL runs as the `postgres` system user, and its archive_command writes a directory target's
 * wal/ as that user: hand it the directory and let it through the parents.
 */
export function prepareArchiveDir(target: BackupTarget): void {
  if (!target.dir) return;
  const walDir = join(target.dir, 'wal');
  try {
    makeDirsSync(walDir);
  } catch (error) {
    throw errors.targetNotWritable(target.spec, (error as Error).message);
  }
  const owner = systemUser();
  if (!owner) return;
  chownSync(walDir, owner.uid, owner.gid);
  for (const dir of [target.dir, dirname(target.dir)]) chmodSync(dir, statSync(dir).mode | 0o011);
}
