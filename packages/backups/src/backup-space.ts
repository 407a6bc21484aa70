// A base backup into a directory on DATA_DIR's own filesystem would eat the room the free-space floor keeps for
// PostgreSQL's WAL: such a backup asks the floor first, for about the size of what it copies, and is refused
// (skipped, with the reason logged by whoever asked for it) when that would take free space under the floor.
// A directory on another filesystem, or S3, cannot starve PostgreSQL and is not asked about.
import { statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { errors } from './backup-errors.js';
import type { BackupTarget } from './backup-target.js';
import { listDataDir } from './data-dir-files.js';

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** The part of @auction-ops/database's disk floor a backup uses. */
export interface BackupSpaceFloor {
  admit(operation: 'backup' | 'drill', bytes?: number): boolean;
  reading(): { freeBytes: number; floorBytes: number };
}

/** The device of `path`, or of its nearest existing parent (a target directory not made yet). */
function deviceOf(path: string): number {
  let at = resolve(path);
  for (;;) {
    try {
      return statSync(at).dev;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(at) === at) throw error;
      at = dirname(at);
    }
  }
}

/** About what a base backup of DATA_DIR copies (the WAL it adds is small beside it). */
function estimateBytes(dataDir: string): number {
  let total = 0;
  for (const file of listDataDir(dataDir).files) {
    try {
      total += statSync(join(dataDir, file)).size;
    } catch {
      // Gone while we looked (a dropped table, a finished upload): the copy skips it too.
    }
  }
  return total;
}

/** Throws the refusal when a backup into `target` would take DATA_DIR's filesystem under its floor. */
export function checkBackupSpace(target: BackupTarget, dataDir: string, floor: BackupSpaceFloor | undefined): void {
  if (!floor || target.dir === undefined) return;
  if (deviceOf(target.dir) !== deviceOf(dataDir)) return;
  const estimate = estimateBytes(dataDir);
  if (floor.admit('backup', estimate)) return;
  const { freeBytes, floorBytes } = floor.reading();
  throw errors.belowDiskFloor(target.spec, mb(estimate), mb(freeBytes), mb(floorBytes));
}
