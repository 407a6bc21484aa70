// The free-space floor: its default, admission against the kept reading, refusals counted, and writes let in
// again once space is freed (a fake statfs stands for the filesystem).
import { describe, expect, it } from 'vitest';
import { floorBytesOf, isOutOfSpace, startDiskFloor, type StatfsLike } from './disk-floor.js';

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;

/** A filesystem of `total` bytes in 4 KiB blocks whose free space the test sets. */
function fakeDisk(total: number, free: number) {
  const disk = { free, reads: 0 };
  const statfs: StatfsLike = async () => {
    disk.reads++;
    return { bsize: 4096, blocks: total / 4096, bavail: Math.floor(disk.free / 4096) };
  };
  return { disk, statfs };
}

async function until(condition: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met before the deadline');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('floorBytesOf', () => {
  it('is the larger of 1 GiB and 5 % of the filesystem by default', () => {
    expect(floorBytesOf(undefined, 10 * GIB)).toBe(GIB);
    expect(floorBytesOf(undefined, 100 * GIB)).toBe(5 * GIB);
  });
  it('takes DISK_FREE_FLOOR_MB in MiB, and 0 is off', () => {
    expect(floorBytesOf(100, 100 * GIB)).toBe(100 * MIB);
    expect(floorBytesOf(0, 100 * GIB)).toBe(0);
  });
});

describe('disk floor', () => {
  it('admits while free space less the write stays over the floor, and counts refusals', async () => {
    const { statfs } = fakeDisk(GIB, 300 * MIB);
    const floor = await startDiskFloor({ path: '/data', floorMb: 100, statfs, refreshMs: 60_000 });
    try {
      expect(floor.below()).toBe(false);
      expect(floor.admit('upload', 150 * MIB)).toBe(true);
      // The 150 MiB admitted are taken off until the next reading: 150 MiB left, 100 of them the floor.
      expect(floor.reading().freeBytes).toBe(150 * MIB);
      expect(floor.admit('upload', 60 * MIB)).toBe(false);
      expect(floor.admit('import', 60 * MIB)).toBe(false);
      expect(floor.admit('upload', 40 * MIB)).toBe(true);
      expect(floor.counts()).toEqual({ refusals: { upload: 1, import: 1, backup: 0, drill: 0 }, diskFull: 0 });
    } finally {
      floor.stop();
    }
  });

  it('refuses everything below the floor and lets writes in again once space is freed', async () => {
    const { disk, statfs } = fakeDisk(GIB, 50 * MIB);
    const crossings: boolean[] = [];
    const floor = await startDiskFloor({
      path: '/data',
      floorMb: 100,
      statfs,
      refreshMs: 10,
      onCross: (below) => crossings.push(below),
    });
    try {
      expect(floor.below()).toBe(true);
      expect(floor.admit('backup')).toBe(false);
      disk.free = 500 * MIB;
      await until(() => !floor.below());
      expect(floor.admit('upload', MIB)).toBe(true);
      expect(crossings).toEqual([true, false]);
    } finally {
      floor.stop();
    }
  });

  it('reads once per interval, not per question', async () => {
    const { disk, statfs } = fakeDisk(GIB, 500 * MIB);
    const floor = await startDiskFloor({ path: '/data', floorMb: 100, statfs, refreshMs: 60_000 });
    try {
      for (let i = 0; i < 1000; i++) floor.admit('upload', 1);
      expect(disk.reads).toBe(1);
    } finally {
      floor.stop();
    }
  });

  it('reads again at once when a write ran out of space', async () => {
    const { disk, statfs } = fakeDisk(GIB, 500 * MIB);
    const floor = await startDiskFloor({ path: '/data', floorMb: 100, statfs, refreshMs: 60_000 });
    try {
      disk.free = 0;
      floor.ranOut();
      await until(() => floor.below());
      expect(floor.counts().diskFull).toBe(1);
    } finally {
      floor.stop();
    }
  });

  it('refuses nothing with a floor of 0', async () => {
    const { statfs } = fakeDisk(GIB, 0);
    const floor = await startDiskFloor({ path: '/data', floorMb: 0, statfs, refreshMs: 60_000 });
    try {
      expect(floor.admit('upload', MIB)).toBe(true);
      expect(floor.below()).toBe(false);
    } finally {
      floor.stop();
    }
  });

  it('keeps the last reading when one fails', async () => {
    const { disk, statfs } = fakeDisk(GIB, 500 * MIB);
    const errors: unknown[] = [];
    let failing = false;
    const flaky: StatfsLike = (path) => (failing ? Promise.reject(new Error('EIO')) : statfs(path));
    const floor = await startDiskFloor({
      path: '/data',
      floorMb: 100,
      statfs: flaky,
      refreshMs: 10,
      onReadError: (e) => errors.push(e),
    });
    try {
      failing = true;
      await until(() => errors.length > 0);
      expect(floor.reading().freeBytes).toBe(500 * MIB);
      expect(disk.reads).toBe(1);
    } finally {
      floor.stop();
    }
  });
});

describe('isOutOfSpace', () => {
  it('knows ENOSPC, EDQUOT and PostgreSQL disk_full', () => {
    expect(isOutOfSpace(Object.assign(new Error('x'), { code: 'ENOSPC' }))).toBe(true);
    expect(isOutOfSpace({ code: 'EDQUOT' })).toBe(true);
    expect(isOutOfSpace({ code: '53100' })).toBe(true);
    expect(isOutOfSpace({ code: 'EIO' })).toBe(false);
    expect(isOutOfSpace(null)).toBe(false);
  });
});
