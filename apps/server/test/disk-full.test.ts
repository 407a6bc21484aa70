// A full disk, end to end: the real server (bin/start.mjs, embedded PostgreSQL) with DATA_DIR on a 300 MB tmpfs
// and a free-space floor of 64 MiB. Uploads over HTTP fill it until refused with storage's 507; PostgreSQL stays
// up (a read and an insert work), every acknowledged upload reads back byte for byte, deleting objects lets uploads
// in again without a restart, and a disk that really fills during an upload (a 2 MB tmpfs over the spool
// directory, then over the resumable uploads' staging directory) answers 507 and leaves nothing behind. Mounting needs root: elsewhere the file is skipped, saying why.
// It runs alone (`pnpm test:disk`, vitest.disk.config.ts): it mounts filesystems and fills one.
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signApiKey } from '@auction-ops/auth-core';
import { findFreePort } from '@auction-ops/database';
import { until } from './support/loopback.js';
import { type ServerProcess, serverProcess } from './support/test-server.js';

const FLOOR_MB = 64;
const UPLOAD_BYTES = 3 * 1024 * 1024;
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
const secret = 'd'.repeat(40);

function mountTmpfs(dir: string, size: string): string | undefined {
  if (process.getuid?.() !== 0) return 'not root: mounting a tmpfs needs root';
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
    return undefined;
  } catch (error) {
    return `mount -t tmpfs failed: ${String((error as { stderr?: Buffer }).stderr ?? error).trim()}`;
  }
}

const unmount = (dir: string) => {
  try {
    execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
  } catch {
    // Not mounted (the mount failed, or it is gone already).
  }
};

const root = mkdtempSync(join(tmpdir(), 'auction-ops-disk-full-'));
// As root, PostgreSQL runs as its own system user, which must pass through to DATA_DIR.
chmodSync(root, 0o755);
const dataDir = join(root, 'data');
mkdirSync(dataDir);
const skipReason = mountTmpfs(dataDir, '300m');
if (skipReason) console.warn(`disk-full.test.ts skipped: ${skipReason}`);

const png = (size: number) => Buffer.concat([PNG, randomBytes(size - PNG.length)]);
const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe.skipIf(skipReason !== undefined)('a full disk', () => {
  let proc: ServerProcess | undefined;
  let url: string;
  let headers: Record<string, string>;

  beforeAll(async () => {
    const port = await findFreePort();
    url = `http://127.0.0.1:${port}`;
    const server = serverProcess(
      {
        LOG_LEVEL: 'warn',
        DATA_DIR: dataDir,
        JWT_SECRET: secret,
        WEB_CONCURRENCY: '1',
        RATE_LIMITS_ENABLED: 'false',
        DISK_FREE_FLOOR_MB: String(FLOOR_MB),
        STORAGE_FILE_SIZE_LIMIT: String(8 * 1024 * 1024),
      },
      port,
    );
    const started = server.start();
    proc = started;
    await Promise.race([
      until(server.healthy, 'the server', 90_000),
      started.exited.then(() => {
        throw new Error(`the server exited at start: ${started.output()}`);
      }),
    ]);
    const key = await signApiKey(secret, 'service_role');
    headers = { apikey: key, authorization: `Bearer ${key}` };
  });

  afterAll(async () => {
    if (proc && proc.child.exitCode === null) {
      proc.child.kill('SIGTERM');
      await proc.exited;
    }
    unmount(join(dataDir, 'storage', 'tmp'));
    unmount(join(dataDir, 'storage', 'tus'));
    unmount(dataDir);
    rmSync(root, { recursive: true, force: true });
  });

  const upload = (name: string, body: Buffer) =>
    fetch(`${url}/storage/v1/object/lot-images/${name}`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'image/png' },
      body,
    });

  const createTus = (name: string, length: number) =>
    fetch(`${url}/storage/v1/upload/resumable`, {
      method: 'POST',
      headers: {
        ...headers,
        'tus-resumable': '1.0.0',
        'upload-length': String(length),
        'upload-metadata': Object.entries({ bucketName: 'lot-images', objectName: name, contentType: 'image/png' })
          .map(([k, v]) => `${k} ${Buffer.from(v).toString('base64')}`)
          .join(','),
      },
    });
  const patchTus = (location: string, offset: number, chunk: Buffer) =>
    fetch(location, {
      method: 'PATCH',
      headers: {
        ...headers,
        'tus-resumable': '1.0.0',
        'upload-offset': String(offset),
        'content-type': 'application/offset+octet-stream',
      },
      body: chunk,
    });

  it('refuses uploads under the floor with 507, keeps PostgreSQL and every acknowledged upload, and resumes', async () => {
    // A resumable upload begun while there is room: its first half is written now, its second after the fill.
    const resumable = png(UPLOAD_BYTES);
    const half = UPLOAD_BYTES / 2;
    const created = await createTus('tus/begun.png', UPLOAD_BYTES);
    expect(created.status).toBe(201);
    const location = created.headers.get('location')!;
    expect((await patchTus(location, 0, resumable.subarray(0, half))).status).toBe(204);

    // Fill: upload until the floor refuses, then with smaller bodies until even 256 KB is refused.
    const stored = new Map<string, string>();
    const fill = async (size: number) => {
      for (let n = 0; n < 200; n++) {
        const name = `fill/${size}-${n}.png`;
        const bytes = png(size);
        const res = await upload(name, bytes);
        if (res.status !== 200) return res;
        stored.set(name, sha(bytes));
      }
      throw new Error('never refused');
    };
    const refused = await fill(UPLOAD_BYTES);
    expect((await fill(256 * 1024)).status).toBe(507);
    expect(stored.size).toBeGreaterThan(0);
    expect(refused.status).toBe(507);
    expect(await refused.json()).toEqual({
      statusCode: '507',
      error: 'InsufficientStorage',
      message: expect.stringMatching(/^Insufficient storage: free disk space on the server is below its floor/),
    });

    // A resumable upload is refused at creation and at each PATCH too, in storage's shape; its offset stays.
    const tus = await createTus('tus/one.png', UPLOAD_BYTES);
    expect(tus.status).toBe(507);
    expect(((await tus.json()) as { error: string }).error).toBe('InsufficientStorage');
    const patched = await patchTus(location, half, resumable.subarray(half));
    expect(patched.status).toBe(507);
    expect(((await patched.json()) as { error: string }).error).toBe('InsufficientStorage');
    const head = await fetch(location, { method: 'HEAD', headers: { ...headers, 'tus-resumable': '1.0.0' } });
    expect(head.headers.get('upload-offset')).toBe(String(half));

    // PostgreSQL was not starved: a read and an insert over REST.
    const read = await fetch(`${url}/rest/v1/auctions?select=id&limit=1`, { headers });
    expect(read.status).toBe(200);
    const slug = `disk-${randomBytes(4).toString('hex')}`;
    const insert = await fetch(`${url}/rest/v1/auctions`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', prefer: 'return=representation' },
      body: JSON.stringify({ name: 'Disk full', slug }),
    });
    expect(insert.status).toBe(201);

    // The refusals are counted, and free space is a metric.
    const metrics = await (await fetch(`${url}/metrics`, { headers })).text();
    expect(metrics).toMatch(/^disk_floor_refusals_total\{operation="upload"\} [1-9]/m);
    expect(metrics).toMatch(/^data_dir_free_bytes \d+/m);
    expect(metrics).toMatch(new RegExp(`^data_dir_free_floor_bytes ${FLOOR_MB * 1024 * 1024}$`, 'm'));

    // Every acknowledged upload reads back byte for byte.
    for (const [name, digest] of stored) {
      const res = await fetch(`${url}/storage/v1/object/lot-images/${name}`, { headers });
      expect(res.status, name).toBe(200);
      expect(sha(new Uint8Array(await res.arrayBuffer())), name).toBe(digest);
    }

    // Space freed (objects deleted): uploads are let in again, without a restart.
    const removed = await fetch(`${url}/storage/v1/object/lot-images`, {
      method: 'DELETE',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ prefixes: [...stored.keys()] }),
    });
    expect(removed.status).toBe(200);
    const again = png(UPLOAD_BYTES);
    let status = 0;
    await until(
      async () => {
        status = (await upload('after/resumed.png', again)).status;
        return status === 200;
      },
      'uploads accepted again',
      15_000,
    );
    const back = await fetch(`${url}/storage/v1/object/lot-images/after/resumed.png`, { headers });
    expect(sha(new Uint8Array(await back.arrayBuffer()))).toBe(sha(again));
    // The resumable upload goes on from where it stood.
    expect((await patchTus(location, half, resumable.subarray(half))).status).toBe(204);
    const finished = await fetch(`${url}/storage/v1/object/lot-images/tus/begun.png`, { headers });
    expect(sha(new Uint8Array(await finished.arrayBuffer()))).toBe(sha(resumable));
  });

  it('answers 507 when the disk really fills during an upload, and leaves no partial object', async () => {
    // The spool directory on a 2 MB filesystem of its own: over the floor, but a 3 MB body cannot fit.
    const spool = join(dataDir, 'storage', 'tmp');
    mkdirSync(spool, { recursive: true });
    const problem = mountTmpfs(spool, '2m');
    expect(problem).toBeUndefined();
    try {
      const res = await upload('enospc/big.png', png(UPLOAD_BYTES));
      expect(res.status).toBe(507);
      expect(await res.json()).toEqual({
        statusCode: '507',
        error: 'InsufficientStorage',
        message: 'Insufficient storage: the server ran out of disk space; nothing of this upload was stored',
      });
      expect(readdirSync(spool)).toEqual([]);
      const missing = await fetch(`${url}/storage/v1/object/lot-images/enospc/big.png`, { headers });
      expect(missing.status).toBe(404);
    } finally {
      unmount(spool);
    }
    // A resumable upload's chunk that fills the disk: 507, and the offset does not move (nothing acknowledged).
    const staging = join(dataDir, 'storage', 'tus');
    mkdirSync(staging, { recursive: true });
    expect(mountTmpfs(staging, '2m')).toBeUndefined();
    try {
      const created = await createTus('enospc/tus.png', UPLOAD_BYTES);
      expect(created.status).toBe(201);
      const location = created.headers.get('location')!;
      const patched = await patchTus(location, 0, png(UPLOAD_BYTES));
      expect(patched.status).toBe(507);
      expect(((await patched.json()) as { error: string }).error).toBe('InsufficientStorage');
      const head = await fetch(location, { method: 'HEAD', headers: { ...headers, 'tus-resumable': '1.0.0' } });
      expect(head.headers.get('upload-offset')).toBe('0');
      const ended = await fetch(location, { method: 'DELETE', headers: { ...headers, 'tus-resumable': '1.0.0' } });
      expect(ended.status).toBe(204);
    } finally {
      unmount(staging);
    }
    // With the spool back on DATA_DIR's filesystem, the same upload is stored.
    const bytes = png(UPLOAD_BYTES);
    expect((await upload('enospc/big.png', bytes)).status).toBe(200);
    const back = await fetch(`${url}/storage/v1/object/lot-images/enospc/big.png`, { headers });
    expect(sha(new Uint8Array(await back.arrayBuffer()))).toBe(sha(bytes));
  });
});
