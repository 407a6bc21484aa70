// Uploads and DATA_DIR's free-space floor (@auction-ops/database's disk floor): a write that would take free space
// under the floor is refused with 507 before a byte is written, and a write that ran out of space anyway (ENOSPC)
// tells the floor, which reads free space again at once. Either way the caller gets storage's 507, never a 500.
import { isOutOfSpace } from '@auction-ops/database';
import { errors } from './storage-errors.js';

/** The part of the disk floor that uploads use; without one, only disk-full errors are turned into 507. */
export interface SpaceFloor {
  admit(operation: 'upload', bytes?: number): boolean;
  ranOut(): void;
}

export class DiskSpaceGuard {
  constructor(private readonly floor: SpaceFloor | undefined) {}

  /** Refuses (507) when writing `bytes` more would take free space under the floor. */
  admit(bytes: number): void {
    if (this.floor && !this.floor.admit('upload', bytes)) throw errors.belowDiskFloor();
  }

  /** Runs a write; a disk-full failure is reported to the floor (the error itself maps to 507 at the edge). */
  async watch<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (isOutOfSpace(error)) this.floor?.ranOut();
      throw error;
    }
  }
}
