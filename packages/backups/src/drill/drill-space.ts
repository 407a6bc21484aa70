// Whether the scratch copy of a drill fits: about the base backup plus the archived WAL it replays. On DATA_DIR's
// filesystem the free-space floor is asked (PostgreSQL keeps that room for its WAL); elsewhere the free space
// itself must hold it.
import { statSync } from 'node:fs';
import { statfsNearest } from '@auction-ops/database';
import type { BackupManifest } from '../backup-manifest.js';
import type { BackupSpaceFloor } from '../backup-space.js';
import type { BackupTarget } from '../backup-target.js';

const SEGMENT_BYTES = 16 * 1024 * 1024;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** About the bytes a restore of `backup` writes: its files, and every archived segment since it began. */
export async function drillBytes(target: BackupTarget, backup: BackupManifest): Promise<number> {
  const segments = (await target.store.list('wal')).filter(
    (name) => /^[0-9A-F]{24}$/.test(name) && name >= backup.start_wal,
  );
  return backup.bytes + segments.length * SEGMENT_BYTES;
}

const deviceOf = (path: string) => statSync(path).dev;

/** Why the copy would not fit, or undefined when it does. */
export async function drillSpaceProblem(
  scratchParent: string,
  dataDir: string,
  bytes: number,
  floor: BackupSpaceFloor | undefined,
): Promise<string | undefined> {
  if (floor && deviceOf(scratchParent) === deviceOf(dataDir)) {
    if (floor.admit('drill', bytes)) return undefined;
    const { freeBytes, floorBytes } = floor.reading();
    return (
      `the scratch copy (about ${mb(bytes)}) in ${scratchParent}, on DATA_DIR's filesystem, would take its ` +
      `${mb(freeBytes)} free under the floor of ${mb(floorBytes)} kept for PostgreSQL's WAL (DISK_FREE_FLOOR_MB); ` +
      'free space or set BACKUP_DRILL_DIR to another disk'
    );
  }
  const { freeBytes } = await statfsNearest(scratchParent);
  if (freeBytes >= bytes) return undefined;
  return `the scratch copy (about ${mb(bytes)}) does not fit in ${scratchParent} (${mb(freeBytes)} free)`;
}
