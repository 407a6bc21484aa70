import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { RenderCache } from './render-cache.js';

const key = (n: number) => createHash('sha256').update(String(n)).digest('hex');
const png = (size: number) => ({ bytes: Buffer.alloc(size, 1), contentType: 'image/png' });

describe('RenderCache', () => {
  const dirs: string[] = [];
  const fresh = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'render-cache-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(async () => Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true }))));

  it('stays under its byte limit by removing the least recently used rendering', async () => {
    const dir = await fresh();
    const cache = new RenderCache(dir, 250);
    await cache.put(key(1), png(100));
    await cache.put(key(2), png(100));
    expect(await cache.get(key(1))).toBeDefined(); // 1 is now more recent than 2
    await cache.put(key(3), png(100));
    expect(cache.sizeBytes).toBe(200);
    expect(await cache.get(key(2))).toBeUndefined();
    expect((await cache.get(key(1)))?.contentType).toBe('image/png');
    expect((await readdir(dir)).sort()).toEqual([`${key(1)}.png`, `${key(3)}.png`].sort());
  });

  it('rebuilds its index from the directory, oldest first, and drops stray files', async () => {
    const dir = await fresh();
    const first = new RenderCache(dir, 1000);
    await first.put(key(1), png(300));
    await first.put(key(2), { bytes: Buffer.alloc(300), contentType: 'image/webp' });
    await writeFile(join(dir, 'half-written.tmp'), 'x');
    const second = new RenderCache(dir, 500);
    expect((await second.get(key(2)))?.contentType).toBe('image/webp');
    expect(await second.get(key(1))).toBeUndefined();
    expect(await readdir(dir)).toEqual([`${key(2)}.webp`]);
  });

  it('reads a file another process removed as a miss, and keeps nothing with a limit of 0', async () => {
    const dir = await fresh();
    const cache = new RenderCache(dir, 1000);
    await cache.put(key(1), png(10));
    await rm(join(dir, `${key(1)}.png`));
    expect(await cache.get(key(1))).toBeUndefined();
    expect(cache.sizeBytes).toBe(0);
    const off = new RenderCache(await fresh(), 0);
    await off.put(key(2), png(10));
    expect(await off.get(key(2))).toBeUndefined();
  });
});
