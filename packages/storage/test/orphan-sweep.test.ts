// The orphan sweep on both backends, after a simulated crash: an upload whose bytes were placed but whose
// process stopped before the commit (the backend call never returns, its connection is gone, so the row
// rolls back and its cleanup never happens). The sweep leaves young keys (in-flight uploads) and referenced keys alone.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { authMigrations } from '@auction-ops/auth-core';
import { storageMigrations, sweepOrphans, type StorageBackend } from '../src/index.js';
import { SERVICE } from '../src/caller-transaction.js';
import { ObjectReadService } from '../src/object-read-service.js';
import { ObjectWriteService } from '../src/object-write-service.js';
import { createSignedUrlSigner } from '../src/signed-url-token.js';
import { startTestBackend } from '../src/testing/index.js';

const HOUR = 3600_000;
const png = () => Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.alloc(200, 7)]);

describe.each(['fs', 's3'] as const)('orphan sweep, %s backend', (kind) => {
  let db: TestDatabase;
  let dir: string;
  let testBackend: Awaited<ReturnType<typeof startTestBackend>> | undefined;
  let backend: StorageBackend;

  const writer = (sql: postgres.Sql, store: StorageBackend) => {
    const reads = new ObjectReadService(sql, store, createSignedUrlSigner('x'.repeat(40)));
    return new ObjectWriteService({
      sql,
      backend: store,
      reads,
      tmpDir: join(dir, 'tmp'),
      fileSizeLimit: 1 << 20,
      log: () => {},
    });
  };
  const body = () => ({
    source: Readable.from([png()]),
    declaredType: 'image/png',
    cacheControl: 'max-age=60',
    userMetadata: null,
    contentLength: undefined,
  });

  beforeAll(async () => {
    db = await createTestDatabase([authMigrations, storageMigrations]);
    // Storage alone has no buckets: the application's migrations make them.
    await db.sql`insert into storage.buckets (id, name, public) values ('lot-images', 'lot-images', true)`;
    dir = mkdtempSync(join(tmpdir(), 'storage-sweep-'));
    testBackend = await startTestBackend(kind, dir);
    backend = testBackend.backend;
  });
  afterAll(async () => {
    await testBackend?.close();
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('removes the bytes of a crashed upload once they are past the grace period, never committed ones', async () => {
    const pool = postgres(db.requestUrl, { max: 2, onnotice: () => {} });
    const kept = await writer(pool, backend).upload(
      SERVICE,
      { bucket: 'lot-images', name: 'u/kept.png' },
      body(),
      'create',
    );

    // The crash: bytes placed, then the process "stops" (put never returns) and its connections drop.
    let placed!: () => void;
    const wasPlaced = new Promise<void>((resolve) => {
      placed = resolve;
    });
    const crashing: StorageBackend = {
      ...backend,
      async put(key, file, info) {
        await backend.put(key, file, info);
        placed();
        return new Promise<never>(() => {});
      },
      async remove() {
        // A dead process cleans nothing up: the rollback path (run when the pool rejects the transaction) is a no-op.
      },
    };
    const crashPool = postgres(db.requestUrl, { max: 1, onnotice: () => {} });
    void writer(crashPool, crashing)
      .upload(SERVICE, { bucket: 'lot-images', name: 'u/lost.png' }, body(), 'create')
      .catch(() => {});
    await wasPlaced;
    await crashPool.end({ timeout: 0 });

    const rows = await db.sql<{ key: string }[]>`select bucket_id || '/' || version as key from storage.objects`;
    expect(rows.map((r) => r.key)).toHaveLength(1);
    const stored = await backend.keys();
    expect(stored).toHaveLength(2);
    const orphan = stored.find((k) => k !== rows[0]!.key)!;

    // Young keys are left alone: this could be an upload whose transaction is still open.
    expect((await sweepOrphans({ sql: pool, backend, graceMs: HOUR })).removed).toEqual([]);
    expect((await backend.keys()).sort()).toEqual(stored.sort());

    // Past the grace period the orphan goes; the committed object's bytes stay.
    const later = await sweepOrphans({ sql: pool, backend, graceMs: HOUR, now: () => Date.now() + 2 * HOUR });
    expect(later).toEqual({ scanned: 2, removed: [orphan] });
    expect(await backend.keys()).toEqual([rows[0]!.key]);
    const [row] = await db.sql`select id from storage.objects where name = 'u/kept.png'`;
    expect(row?.id).toBe(kept.Id);
    await pool.end();
  });

  it('has nothing to remove when every key is referenced', async () => {
    const result = await sweepOrphans({ sql: db.sql, backend, graceMs: 0, now: () => Date.now() + HOUR });
    expect(result.removed).toEqual([]);
  });
});
