import { createHash, randomBytes } from 'node:crypto';
import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileMd5 } from './file-md5.js';

const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');

describe('FileMd5', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'file-md5-'));
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('hashes what was written from its offset on, told batch by batch, and several files at once', async () => {
    const prefix = randomBytes(1000);
    const files = [join(dir, 'a'), join(dir, 'b')];
    const bodies = [randomBytes(3 * 1024 * 1024 + 17), randomBytes(200_000)];
    await Promise.all(files.map((file) => writeFile(file, prefix)));
    const hashes = files.map((file) => new FileMd5(file, prefix.length));
    // Interleaved batches of uneven sizes, as two uploads' writes complete.
    const positions = [prefix.length, prefix.length];
    for (let step = 0; positions.some((p, i) => p < prefix.length + bodies[i]!.length); step++) {
      for (const i of [0, 1]) {
        const body = bodies[i]!;
        const at = positions[i]! - prefix.length;
        if (at >= body.length) continue;
        const batch = body.subarray(at, at + 65_536 * (1 + (step % 5)));
        await appendFile(files[i]!, batch);
        positions[i]! += batch.length;
        hashes[i]!.written(positions[i]!);
      }
    }
    const digests = await Promise.all(hashes.map((h, i) => h.digest(prefix.length + bodies[i]!.length)));
    expect(digests).toEqual(bodies.map(md5));
  });

  it('hashes the bytes up to the digest even when no batch was announced, and an empty range', async () => {
    const file = join(dir, 'c');
    const body = randomBytes(70_000);
    await writeFile(file, body);
    expect(await new FileMd5(file, 0).digest(body.length)).toBe(md5(body));
    expect(await new FileMd5(file, body.length).digest(body.length)).toBe(md5(Buffer.alloc(0)));
  });

  it('fails a digest of bytes the file does not hold, and goes on serving others', async () => {
    const file = join(dir, 'd');
    await writeFile(file, randomBytes(10));
    await expect(new FileMd5(file, 0).digest(20)).rejects.toThrow(/shorter than was written/);
    await expect(new FileMd5(join(dir, 'missing'), 0).digest(1)).rejects.toThrow(/ENOENT/);
    const aborted = new FileMd5(file, 0);
    aborted.written(10);
    aborted.abort();
    await expect(aborted.digest(10)).rejects.toThrow(/finished/);
    const body = randomBytes(5000);
    await writeFile(file, body);
    expect(await new FileMd5(file, 0).digest(body.length)).toBe(md5(body));
  });
});
