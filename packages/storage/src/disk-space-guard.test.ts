// Uploads and the free-space floor: refused with 507 before writing under it; a disk-full failure (ENOSPC,
// PostgreSQL's disk_full) tells the floor and renders as storage's 507, never a 500.
import { describe, expect, it } from 'vitest';
import { DiskSpaceGuard, type SpaceFloor } from './disk-space-guard.js';
import { StorageError, toStorageError } from './storage-errors.js';

function fakeFloor(admits: boolean): SpaceFloor & { asked: number[]; ranOutCount: number } {
  const floor = {
    asked: [] as number[],
    ranOutCount: 0,
    admit: (_op: 'upload', bytes = 0) => {
      floor.asked.push(bytes);
      return admits;
    },
    ranOut: () => {
      floor.ranOutCount++;
    },
  };
  return floor;
}

const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });

describe('DiskSpaceGuard', () => {
  it('refuses under the floor with 507 InsufficientStorage', () => {
    const floor = fakeFloor(false);
    let refusal: unknown;
    try {
      new DiskSpaceGuard(floor).admit(5000);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(StorageError);
    expect((refusal as StorageError).toBody()).toEqual({
      statusCode: '507',
      error: 'InsufficientStorage',
      message: expect.stringMatching(/^Insufficient storage: free disk space on the server is below its floor/),
    });
    expect(floor.asked).toEqual([5000]);
  });

  it('admits over the floor, and admits anything without one', () => {
    expect(() => new DiskSpaceGuard(fakeFloor(true)).admit(1)).not.toThrow();
    expect(() => new DiskSpaceGuard(undefined).admit(1)).not.toThrow();
  });

  it('tells the floor when a write ran out of space, and only then', async () => {
    const floor = fakeFloor(true);
    const guard = new DiskSpaceGuard(floor);
    await expect(guard.watch(() => Promise.reject(enospc()))).rejects.toMatchObject({ code: 'ENOSPC' });
    await expect(guard.watch(() => Promise.reject(new Error('other')))).rejects.toThrow('other');
    expect(await guard.watch(async () => 'stored')).toBe('stored');
    expect(floor.ranOutCount).toBe(1);
  });
});

describe('toStorageError and a full disk', () => {
  it.each([
    ['ENOSPC', enospc()],
    ['EDQUOT', Object.assign(new Error('quota'), { code: 'EDQUOT' })],
    ['disk_full', Object.assign(new Error('could not extend file'), { code: '53100' })],
  ])('renders %s as 507, keeping the cause', (_name, error) => {
    const failure = toStorageError(error);
    expect(failure.status).toBe(507);
    expect(failure.toBody()).toEqual({
      statusCode: '507',
      error: 'InsufficientStorage',
      message: 'Insufficient storage: the server ran out of disk space; nothing of this upload was stored',
    });
    expect(failure.cause).toBe(error);
  });
});
