// The last step: the old cluster moves aside (kept as the physical backup of the upgrade), the new one takes its
// name. Two renames in one directory; if the second fails the first is undone, so `data` is always a whole cluster.
import { renameSync } from 'node:fs';
import { join } from 'node:path';

/** e.g. data.pg16-20261128T050102Z */
export function keptDirName(oldMajor: number, now: Date = new Date()): string {
  return `data.pg${oldMajor}-${now.toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '')}`;
}

export function swapDataDirs(postgresDir: string, upgrading: string, kept: string): void {
  const data = join(postgresDir, 'data');
  renameSync(data, join(postgresDir, kept));
  try {
    renameSync(join(postgresDir, upgrading), data);
  } catch (error) {
    renameSync(join(postgresDir, kept), data);
    throw error;
  }
}
