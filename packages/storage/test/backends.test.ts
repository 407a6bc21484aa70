// The two backends behind one interface, run by the same cases: filesystem and S3-compatible (s3rver).
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StorageBackend } from '../src/index.js';
import { objectKey } from '../src/storage-backend.js';
import { spoolUpload } from '../src/upload-spool.js';
import { startTestBackend } from '../src/testing/index.js';

const text = async (stream: Readable) => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
};

describe.each(['fs', 's3'] as const)('%s backend', (kind) => {
  let dir: string;
  let testBackend: Awaited<ReturnType<typeof startTestBackend>> | undefined;
  let backend: StorageBackend;
  const file = (bytes: Buffer) => {
    const path = join(dir, `${randomUUID()}.part`);
    writeFileSync(path, bytes);
    return path;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'storage-backend-'));
    testBackend = await startTestBackend(kind, dir);
    backend = testBackend.backend;
  });
  afterAll(async () => {
    await testBackend?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('puts, reads whole and ranged, copies, lists and removes', async () => {
    const bytes = Buffer.from('0123456789abcdef');
    const key = objectKey('lot-images', randomUUID());
    await backend.put(key, file(bytes), { size: bytes.length, contentType: 'image/png' });
    expect((await text(await backend.get(key))).toString()).toBe('0123456789abcdef');
    expect((await text(await backend.get(key, { start: 3, end: 6 }))).toString()).toBe('3456');
    const copy = objectKey('lot-images', randomUUID());
    await backend.copy(key, copy);
    expect((await text(await backend.get(copy))).toString()).toBe('0123456789abcdef');
    expect((await backend.keys()).sort()).toEqual([key, copy].sort());
    await backend.remove([key, copy, objectKey('lot-images', randomUUID())]);
    expect(await backend.keys()).toEqual([]);
  });

  it('answers the storage 404 for missing keys and refuses keys it did not make', async () => {
    const missing = objectKey('lot-images', randomUUID());
    await expect(backend.get(missing)).rejects.toMatchObject({ status: 404 });
    await expect(backend.copy(missing, objectKey('lot-images', randomUUID()))).rejects.toMatchObject({ status: 404 });
    await expect(backend.get('lot-images/../../etc/passwd')).rejects.toThrow(/refusing storage key/);
    await expect(backend.remove(['../x'])).rejects.toThrow(/refusing storage key/);
  });
});

describe('spoolUpload', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'storage-spool-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const png = Buffer.from('89504e470d0a1a0a0000000d49484452'.padEnd(128, '0'), 'hex');
  const options = { limit: 1000, declaredType: 'image/png', allowedTypes: ['image/png'] };

  it('writes the bytes and reports size, md5 and type', async () => {
    const spooled = await spoolUpload(Readable.from([png.subarray(0, 5), png.subarray(5)]), {
      ...options,
      tmpDir: dir,
    });
    expect(spooled).toMatchObject({ size: png.length, mimetype: 'image/png' });
    expect(spooled.md5).toMatch(/^[0-9a-f]{32}$/);
  });

  it('stops at the first chunk over the limit and removes the spool file', async () => {
    let pulled = 0;
    const endless = new Readable({
      read() {
        pulled++;
        this.push(pulled === 1 ? png : Buffer.alloc(400));
      },
    });
    await expect(spoolUpload(endless, { ...options, tmpDir: join(dir, 'limit') })).rejects.toMatchObject({
      status: 413,
    });
    expect(await readdir(join(dir, 'limit'))).toEqual([]);
  });

  it('removes the spool file when the source fails midway', async () => {
    // The first read gives the image's bytes; the next one (asked for once they were taken) breaks the source.
    let reads = 0;
    const failing = new Readable({
      read() {
        reads++;
        if (reads === 1) this.push(png);
        else this.destroy(new Error('socket hang up'));
      },
    });
    await expect(spoolUpload(failing, { ...options, tmpDir: join(dir, 'fail') })).rejects.toMatchObject({
      status: 400,
    });
    expect(reads).toBe(2);
    expect(await readdir(join(dir, 'fail'))).toEqual([]);
  });

  it('answers 400 without an unhandled error when the source fails while the spool file is being opened', async () => {
    const failing = new Readable({ read() {} });
    const spooled = spoolUpload(failing, { ...options, tmpDir: join(dir, 'early') });
    // spoolUpload is now awaiting the file's creation: the error comes before its stream listeners are attached.
    failing.destroy(new Error('socket hang up'));
    await expect(spooled).rejects.toMatchObject({ status: 400 });
    expect(await readdir(join(dir, 'early'))).toEqual([]);
  });

  it('refuses content that is not the declared image as soon as the first bytes arrive', async () => {
    const fake = Readable.from([Buffer.from('<html>'.padEnd(64, ' '))]);
    await expect(spoolUpload(fake, { ...options, tmpDir: join(dir, 'type') })).rejects.toMatchObject({ status: 415 });
    expect(await readdir(join(dir, 'type'))).toEqual([]);
  });
});
