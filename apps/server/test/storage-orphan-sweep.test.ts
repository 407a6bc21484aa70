// The orphan sweep as the server runs it: once at start and then periodically (STORAGE_ORPHAN_SWEEP_SECONDS),
// removing only unreferenced keys older than STORAGE_ORPHAN_GRACE_SECONDS. Orphans are planted as a crash
// leaves them (bytes under a fresh version key, no row) and aged with utimes; the package test covers S3.
import { randomUUID } from 'node:crypto';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StorageHarness } from './storage-fixtures.js';
import { appUploadPath, imageBytes, startStorageServer } from './storage-fixtures.js';

const objectFile = (dataDir: string, key: string) => {
  const [bucket, version] = key.split('/') as [string, string];
  return join(dataDir, 'storage', 'objects', bucket, version.slice(0, 2), version);
};

/** Bytes as a crashed upload leaves them, last modified `ageSeconds` ago. */
function plant(dataDir: string, ageSeconds: number): string {
  const key = `lot-images/${randomUUID()}`;
  const file = objectFile(dataDir, key);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, imageBytes('image/png', 100));
  const when = new Date(Date.now() - ageSeconds * 1000);
  utimesSync(file, when, when);
  return key;
}

async function until(check: () => Promise<boolean>, ms = 8000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('orphan sweep in the server (fs backend)', () => {
  let h: StorageHarness;
  let beforeStart: string;

  beforeAll(async () => {
    h = await startStorageServer(
      'fs',
      { STORAGE_ORPHAN_SWEEP_SECONDS: '1', STORAGE_ORPHAN_GRACE_SECONDS: '600' },
      async (dataDir) => {
        beforeStart = plant(dataDir, 3600);
      },
    );
  });
  afterAll(async () => h?.close());

  it('sweeps at start and then periodically, keeping young and referenced keys', async () => {
    await until(async () => !(await exists(h, beforeStart)));
    const user = await h.createUser();
    const path = appUploadPath(user.id);
    expect(
      (
        await h
          .client(user.token)
          .storage.from('lot-images')
          .upload(path, imageBytes('image/png'), { contentType: 'image/png' })
      ).error,
    ).toBeNull();
    const [row] = await h.db.sql<
      { key: string }[]
    >`select bucket_id || '/' || version as key from storage.objects where name = ${path}`;
    // Old enough to go if it were unreferenced.
    const old = new Date(Date.now() - 3600_000);
    utimesSync(objectFile(h.dataDir, row!.key), old, old);
    const orphan = plant(h.dataDir, 3600);
    const young = plant(h.dataDir, 5);

    await until(async () => !(await exists(h, orphan)));
    expect(await exists(h, row!.key)).toBe(true);
    expect(await exists(h, young)).toBe(true);
  });
});

function exists(h: StorageHarness, key: string): Promise<boolean> {
  return stat(objectFile(h.dataDir, key)).then(
    () => true,
    () => false,
  );
}
