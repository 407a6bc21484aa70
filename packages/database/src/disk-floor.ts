// The free-space floor of DATA_DIR's filesystem. PostgreSQL stops when it cannot write WAL, so the writes that
// grow the disk on a client's behalf (uploads, CSV imports, local backups, restore drills) are refused while free space is under
// the floor, leaving that room to PostgreSQL. Free space is read with statfs in the background and kept: asking
// costs no syscall. Space freed (objects deleted, a file removed) is seen at the next reading; nothing restarts.
import { statfs as fsStatfs } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/** What refuses for want of space; the refusals are counted by operation (bounded labels). */
export type DiskFloorOperation = 'upload' | 'import' | 'backup' | 'drill';
export const DISK_FLOOR_OPERATIONS: readonly DiskFloorOperation[] = ['upload', 'import', 'backup', 'drill'];

export interface DiskReading {
  freeBytes: number;
  totalBytes: number;
  floorBytes: number;
  /** The filesystem actually read: DATA_DIR, or its nearest existing parent before the first start. */
  path: string;
}

export type StatfsLike = (path: string) => Promise<{ bavail: number; bsize: number; blocks: number }>;

export interface DiskFloorOptions {
  /** DATA_DIR. */
  path: string;
  /** DISK_FREE_FLOOR_MB: undefined for the default (floorBytesOf); 0 turns refusals off. */
  floorMb?: number;
  /** How often free space is read again. */
  refreshMs?: number;
  /** Called when free space crosses the floor, either way (the server logs it). */
  onCross?: (below: boolean, reading: DiskReading) => void;
  /** Called when a reading fails (the previous one is kept). */
  onReadError?: (error: unknown) => void;
  statfs?: StatfsLike;
}

export interface DiskFloor {
  /** The latest reading, with the bytes admitted since taken off. */
  reading(): DiskReading;
  /** Whether free space is under the floor now. */
  below(): boolean;
  /**
   * Whether `bytes` more may be written for `operation`: false, counted as a refusal, when free space less
   * `bytes` would fall under the floor. Admitted bytes are taken off the kept reading until the next one, so
   * uploads arriving together cannot all pass on the same number.
   */
  admit(operation: DiskFloorOperation, bytes?: number): boolean;
  /** A write failed for want of space (ENOSPC past the floor): counted, and free space read again at once. */
  ranOut(): void;
  /** Refusals by operation, and disk-full failures, since the start (plain numbers; the server exports them). */
  counts(): { refusals: Record<DiskFloorOperation, number>; diskFull: number };
  /** Reads free space now (the background does this every refreshMs). */
  refresh(): Promise<DiskReading>;
  stop(): void;
}

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;
const DEFAULT_REFRESH_MS = 1000;

/** The floor in bytes: DISK_FREE_FLOOR_MB when given, else the larger of 1 GiB and 5 % of the filesystem. */
export function floorBytesOf(floorMb: number | undefined, totalBytes: number): number {
  if (floorMb !== undefined) return floorMb * MIB;
  return Math.max(GIB, Math.ceil(totalBytes * 0.05));
}

/** Whether an error is the filesystem being full (or the user's quota spent). */
export function isOutOfSpace(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  // 53100 is PostgreSQL's disk_full.
  return code === 'ENOSPC' || code === 'EDQUOT' || code === '53100';
}

/** statfs of `path`, or of its nearest existing parent (DATA_DIR before the first start). */
export async function statfsNearest(path: string, statfs: StatfsLike = fsStatfs) {
  let at = resolve(path);
  for (;;) {
    try {
      const fs = await statfs(at);
      return { freeBytes: fs.bavail * fs.bsize, totalBytes: fs.blocks * fs.bsize, path: at };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(at) === at) throw error;
      at = dirname(at);
    }
  }
}

export async function startDiskFloor(options: DiskFloorOptions): Promise<DiskFloor> {
  const statfs = options.statfs ?? fsStatfs;
  const refusals: Record<DiskFloorOperation, number> = { upload: 0, import: 0, backup: 0, drill: 0 };
  let diskFull = 0;
  const read = async (): Promise<DiskReading> => {
    const fs = await statfsNearest(options.path, statfs);
    return { ...fs, floorBytes: floorBytesOf(options.floorMb, fs.totalBytes) };
  };
  let current = await read();
  let wasBelow = current.freeBytes < current.floorBytes;
  if (wasBelow) options.onCross?.(true, current);
  let reading: Promise<DiskReading> | undefined;
  const refresh = () => {
    reading ??= read()
      .then((next) => {
        current = next;
        const below = next.freeBytes < next.floorBytes;
        if (below !== wasBelow) options.onCross?.(below, next);
        wasBelow = below;
        return next;
      })
      .finally(() => {
        reading = undefined;
      });
    return reading;
  };
  const timer = setInterval(() => {
    refresh().catch((error: unknown) => options.onReadError?.(error));
  }, options.refreshMs ?? DEFAULT_REFRESH_MS);
  timer.unref();
  return {
    reading: () => current,
    below: () => current.freeBytes < current.floorBytes,
    admit(operation, bytes = 0) {
      // A floor of 0 is off: nothing is refused, the disk-full errors alone remain.
      if (current.floorBytes === 0) return true;
      if (current.freeBytes - bytes < current.floorBytes) {
        refusals[operation]++;
        return false;
      }
      current = { ...current, freeBytes: current.freeBytes - bytes };
      return true;
    },
    ranOut() {
      diskFull++;
      refresh().catch((error: unknown) => options.onReadError?.(error));
    },
    counts: () => ({ refusals: { ...refusals }, diskFull }),
    refresh,
    stop: () => clearInterval(timer),
  };
}
