// Streaming, measured: a 9 MB upload and download must grow the server's resident memory (RSS, sampled every
// 5 ms inside a child process that runs only the server) by less than 20 MB over its baseline after a warm-up
// and a forced GC. A buffering implementation holds the body at least twice (chunks + concatenation) and fails.
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { createUser, imageBytes, JWT_SECRET, appUploadPath, type TestUser } from './storage-fixtures.js';

const MB = 1024 * 1024;
const fixture = fileURLToPath(new URL('./storage-memory-server.fixture.ts', import.meta.url));

describe('storage memory use', () => {
  let db: TestDatabase;
  let dataDir: string;
  let child: ChildProcess;
  let url: string;
  let anonKey: string;
  let user: TestUser;

  const ask = <T>(message: string) =>
    new Promise<T>((resolve) => {
      child.once('message', (m) => resolve(m as T));
      child.send(message);
    });

  beforeAll(async () => {
    db = await createTestDatabase([]);
    dataDir = mkdtempSync(join(tmpdir(), 'auction-ops-storage-memory-'));
    child = fork(fixture, [], {
      execArgv: ['--import', 'tsx', '--expose-gc'],
      env: {
        ...process.env,
        STORAGE_MEMORY_DATABASE_URL: db.ownerUrl,
        STORAGE_MEMORY_DATA_DIR: dataDir,
        STORAGE_MEMORY_JWT_SECRET: JWT_SECRET,
      },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    ({ url, anonKey } = await new Promise<{ url: string; anonKey: string }>((resolve, reject) => {
      child.once('message', (m) => resolve(m as { url: string; anonKey: string }));
      child.once('exit', (code) => reject(new Error(`server child exited with ${code}`)));
    }));
    user = await createUser(db);
  });
  afterAll(async () => {
    if (child?.connected) {
      const exited = new Promise((r) => child.once('exit', r));
      child.send('stop');
      await exited;
    }
    await db?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('uploads and downloads 9 MB with less than 20 MB of server memory growth', async () => {
    const headers = { apikey: anonKey, Authorization: `Bearer ${user.token}`, 'Content-Type': 'image/jpeg' };
    const upload = (path: string, body: Buffer) =>
      fetch(`${url}/storage/v1/object/lot-images/${path}`, { method: 'POST', headers, body });
    // Warm-up: code paths, connection pools and stream buffers are allocated once.
    expect((await upload(appUploadPath(user.id, 'jpg'), imageBytes('image/jpeg', 256 * 1024))).status).toBe(200);

    const bytes = imageBytes('image/jpeg', 9 * MB);
    const path = appUploadPath(user.id, 'jpg');
    await ask('reset');
    expect((await upload(path, bytes)).status).toBe(200);
    const afterUpload = await ask<{ baseline: number; peak: number }>('peak');
    const uploadGrowth = (afterUpload.peak - afterUpload.baseline) / MB;

    await ask('reset');
    const res = await fetch(`${url}/storage/v1/object/public/lot-images/${path}`);
    let received = 0;
    for await (const chunk of res.body!) received += (chunk as Uint8Array).length;
    const afterDownload = await ask<{ baseline: number; peak: number }>('peak');
    const downloadGrowth = (afterDownload.peak - afterDownload.baseline) / MB;

    console.log(
      `storage memory: 9 MB upload +${uploadGrowth.toFixed(1)} MB RSS, download +${downloadGrowth.toFixed(1)} MB RSS`,
    );
    expect(received).toBe(bytes.length);
    expect(uploadGrowth).toBeLessThan(20);
    expect(downloadGrowth).toBeLessThan(20);
  });
});
