import { mkdtemp, open, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BatchedFileWriter } from './batched-file-writer.js';

describe('BatchedFileWriter', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'batched-writer-'));
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('writes every chunk in order from its position, asks for a pause past its buffer, and drains', async () => {
    const file = join(dir, 'f');
    const handle = await open(file, 'w+');
    await handle.write(Buffer.from('0123'));
    let rooms = 0;
    const writer = new BatchedFileWriter(
      handle,
      2,
      () => rooms++,
      () => {},
      10,
    );
    const answers = ['ab', 'cd', 'efgh', 'ijklmn', 'op'].map((text) => writer.push(Buffer.from(text)));
    // The first chunk leaves at once; the rest gather behind it until the buffer of 10 bytes is full.
    expect(answers).toEqual([true, true, true, false, false]);
    await writer.drained();
    await handle.close();
    expect(await readFile(file, 'utf8')).toBe('01abcdefghijklmnop');
    expect(rooms).toBeGreaterThan(0);
  });

  it('reports a failed write once and rejects drained()', async () => {
    const handle = await open(join(dir, 'g'), 'w');
    await handle.close();
    const failures: unknown[] = [];
    const writer = new BatchedFileWriter(
      handle,
      0,
      () => {},
      (error) => failures.push(error),
    );
    writer.push(Buffer.from('x'));
    await expect(writer.drained()).rejects.toThrow();
    expect(failures).toHaveLength(1);
  });

  /** A handle whose writes stop short: `budget` bytes fit, then each write writes nothing or fails with ENOSPC. */
  function fillingHandle(budget: number, full: 'zero' | 'enospc') {
    const written: Buffer[] = [];
    let left = budget;
    const handle = {
      async writev(buffers: Buffer[]) {
        const all = Buffer.concat(buffers);
        if (left === 0 && full === 'enospc')
          throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
        // At most 3 bytes a call: a batch always takes several short writes.
        const n = Math.min(all.length, left, 3);
        written.push(all.subarray(0, n));
        left -= n;
        return { bytesWritten: n, buffers };
      },
    };
    return { handle: handle as unknown as import('node:fs/promises').FileHandle, written };
  }

  it('writes the rest after a short write', async () => {
    const { handle, written } = fillingHandle(100, 'enospc');
    const writer = new BatchedFileWriter(
      handle,
      0,
      () => {},
      () => {},
    );
    writer.push(Buffer.from('abcd'));
    writer.push(Buffer.from('efghij'));
    await writer.drained();
    expect(Buffer.concat(written).toString()).toBe('abcdefghij');
  });

  it.each(['zero', 'enospc'] as const)('a disk that fills part way fails with ENOSPC (%s)', async (full) => {
    const { handle } = fillingHandle(5, full);
    const failures: unknown[] = [];
    const writer = new BatchedFileWriter(
      handle,
      0,
      () => {},
      (error) => failures.push(error),
    );
    writer.push(Buffer.from('abcdefghij'));
    await expect(writer.drained()).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(failures).toHaveLength(1);
  });
});
