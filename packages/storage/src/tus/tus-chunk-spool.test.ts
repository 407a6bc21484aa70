import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spoolChunk } from './tus-chunk-spool.js';

async function until(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('spoolChunk', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tus-chunk-'));
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('stores a whole body', async () => {
    const chunk = await spoolChunk(Readable.from([Buffer.from('abc'), Buffer.from('def')]), dir, 10);
    expect(chunk).toMatchObject({ size: 6, interrupted: false });
    expect(await readFile(chunk.file, 'utf8')).toBe('abcdef');
  });

  it('keeps the bytes that arrived before the body broke off', async () => {
    const source = new PassThrough();
    const spooled = spoolChunk(source, dir, 1000);
    source.write(Buffer.alloc(300, 1));
    // What "arrived" means here: the bytes reached the spool file (not a fixed wait, which a busy machine outruns).
    await until(async () => {
      const [name] = await readdir(dir);
      return name !== undefined && (await stat(join(dir, name))).size === 300;
    });
    source.destroy(new Error('aborted'));
    const chunk = await spooled;
    expect(chunk).toMatchObject({ size: 300, interrupted: true });
    expect((await readFile(chunk.file)).length).toBe(300);
  });

  it('refuses the first byte past the limit with 413 and keeps nothing', async () => {
    const body = Readable.from([Buffer.alloc(6), Buffer.alloc(5)]);
    await expect(spoolChunk(body, dir, 10)).rejects.toMatchObject({ status: 413 });
    expect(await readdir(dir)).toEqual([]);
  });
});
