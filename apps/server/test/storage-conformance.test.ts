// What storage-js expects of Supabase's storage, to the byte, where we differed (issue 33): listV2, route names
// that are never bucket names, MIME parameters, decimal size units, Supabase's answers (413, emptyBucket, info,
// bucket owner), declared types in API-made buckets (with markup and programs still refused under image types),
// a standalone StorageClient, and grants as Supabase has them (row-level security decides).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StorageClient } from '@supabase/storage-js';
import type { SupabaseClient } from '@supabase/supabase-js';
import { OBJECT_ROUTE_NAMES } from '@auction-ops/storage';
import { objectRoutes } from '../src/routes/storage/object-routes.js';
import type { StorageHarness, TestUser } from './storage-fixtures.js';
import { imageBytes, startStorageServer, statusOf } from './storage-fixtures.js';

describe('storage as storage-js expects it', () => {
  let h: StorageHarness;
  let service: SupabaseClient;
  let alice: TestUser;
  const storageUrl = () => `${h.server.url}/storage/v1`;

  beforeAll(async () => {
    h = await startStorageServer('fs');
    service = h.client('service');
    alice = await h.createUser();
    expect((await service.storage.createBucket('docs', { public: true })).error).toBeNull();
  });
  afterAll(async () => h?.close());

  it('serves listV2 with prefix, folders, sortBy and cursor pages, and refuses a forged cursor', async () => {
    const store = service.storage.from('docs');
    const names = ['zz', 'bb', 'xx', 'aa', 'cc'];
    for (const n of names) expect((await store.upload(`v2/${n}.txt`, 'x')).error).toBeNull();
    expect((await store.upload('v2/sub/deep.txt', 'x')).error).toBeNull();

    const flat = await store.listV2({ prefix: 'v2/' });
    expect(flat.error).toBeNull();
    expect(flat.data?.folders).toEqual([]);
    const all = [...names.map((n) => `v2/${n}.txt`), 'v2/sub/deep.txt'];
    expect(flat.data?.objects.map((o) => o.name)).toEqual(all.sort());

    const folders = await store.listV2({ prefix: 'v2/', with_delimiter: true });
    expect(folders.data?.folders).toEqual([{ name: 'v2/sub/', key: 'v2/sub' }]);
    expect(folders.data?.objects).toHaveLength(5);

    for (const [sortBy, expected] of [
      [{ column: 'name', order: 'desc' }, ['zz', 'xx', 'cc', 'bb', 'aa']],
      [{ column: 'created_at', order: 'asc' }, ['zz', 'bb', 'xx', 'aa', 'cc']],
    ] as const) {
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 10; page++) {
        const res = await store.listV2({ prefix: 'v2/', with_delimiter: true, limit: 2, sortBy, cursor });
        expect(res.error).toBeNull();
        seen.push(...res.data!.objects.map((o) => o.name));
        if (!res.data!.hasNext) break;
        cursor = res.data!.nextCursor;
      }
      // The folder comes first; then every object exactly once, in order.
      expect(seen).toEqual(expected.map((n) => `v2/${n}.txt`));
    }
    expect(statusOf((await store.listV2({ prefix: 'v2/', cursor: 'bm90LWEtY3Vyc29y' })).error)).toBe(400);
    expect(statusOf((await store.listV2({ limit: 5000 })).error)).toBe(400);
  });

  it('never reads a route name as a bucket: list-v2 lists, and no bucket may take a route name', async () => {
    // Before: POST /object/list-v2/docs stored the JSON body as the object `docs` of a bucket `list-v2`.
    const res = await fetch(`${storageUrl()}/object/list-v2/docs`, {
      method: 'POST',
      headers: { apikey: h.server.ctx.serviceRoleKey, 'content-type': 'application/json' },
      body: JSON.stringify({ prefix: 'v2/' }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ hasNext: false, folders: [] });
    for (const name of OBJECT_ROUTE_NAMES) {
      const refused = await service.storage.createBucket(name);
      expect(refused.error?.message, name).toBe('Invalid bucket name');
    }
    // The table holds every route of /object that takes a bucket after its name.
    const routeNames = objectRoutes({} as never, {} as never)
      .routes.map((r) => r.path.split('/')[1]!)
      .filter((first) => first !== '*');
    expect(new Set(routeNames)).toEqual(new Set(OBJECT_ROUTE_NAMES));
    const buckets = await h.db.sql`select id from storage.buckets where id = any(${OBJECT_ROUTE_NAMES as string[]})`;
    expect(buckets).toEqual([]);
  });

  it('keeps MIME parameters as sent, and the answers of Supabase (info, 413, emptyBucket)', async () => {
    const store = service.storage.from('docs');
    expect((await store.upload('mime/a.txt', 'hello')).error).toBeNull();
    const download = await fetch(`${storageUrl()}/object/public/docs/mime/a.txt`);
    expect(download.headers.get('content-type')).toBe('text/plain;charset=UTF-8');
    const info = await store.info('mime/a.txt');
    expect(info.data?.contentType).toBe('text/plain;charset=UTF-8');
    expect(Object.keys(info.data!)).not.toContain('updatedAt');

    expect((await service.storage.createBucket('tiny', { public: false, fileSizeLimit: '1kb' })).error).toBeNull();
    expect((await service.storage.getBucket('tiny')).data?.file_size_limit).toBe(1000);
    const big = await service.storage.from('tiny').upload('big.bin', Buffer.alloc(1001));
    expect(big.error?.message).toBe('The object exceeded the maximum allowed size');
    expect((await service.storage.from('tiny').upload('ok.bin', Buffer.alloc(1000))).error).toBeNull();
    expect(await service.storage.emptyBucket('tiny')).toEqual({
      data: { message: 'Empty bucket has been queued. Completion may take up to an hour.' },
      error: null,
    });
    expect((await service.storage.from('tiny').list()).data).toEqual([]);
  });

  it('empties a bucket of more than one batch (the batches after the first run after the answer)', async () => {
    expect((await service.storage.createBucket('many', { public: false })).error).toBeNull();
    await h.db.sql`insert into storage.objects (bucket_id, name, version)
      select 'many', 'f/' || i, gen_random_uuid()::text from generate_series(1, 2500) i`;
    expect((await service.storage.emptyBucket('many')).data?.message).toMatch(/^Empty bucket has been queued/);
    const left = async () =>
      (await h.db.sql`select count(*)::int as n from storage.objects where bucket_id = 'many'`)[0]!.n;
    for (let i = 0; i < 100 && (await left()) > 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await left()).toBe(0);
    expect((await service.storage.deleteBucket('many')).error).toBeNull();
  });

  it('lets the declared type rule in API-made buckets, but never stores markup or programs as images', async () => {
    expect(
      (await service.storage.createBucket('pngs', { public: false, allowedMimeTypes: ['image/png'] })).error,
    ).toBeNull();
    const pngs = service.storage.from('pngs');
    expect(
      (await pngs.upload('jpeg-bytes.png', imageBytes('image/jpeg'), { contentType: 'image/png' })).error,
    ).toBeNull();
    expect(statusOf((await pngs.upload('j.jpg', imageBytes('image/jpeg'), { contentType: 'image/jpeg' })).error)).toBe(
      415,
    );
    for (const active of ['<!DOCTYPE html><script>alert(1)</script>', '<svg onload="alert(1)"/>', '\x7fELF\x02\x01']) {
      const res = await pngs.upload('active.png', Buffer.from(active, 'latin1'), { contentType: 'image/png' });
      expect(statusOf(res.error), active).toBe(415);
    }
    // lot-images, made by the domain's SQL, keeps the strict rule: the bytes must be what is declared.
    const own = h.client(alice.token).storage.from('lot-images');
    const mislabelled = await own.upload(`${alice.id}/x.png`, imageBytes('image/jpeg'), { contentType: 'image/png' });
    expect(statusOf(mislabelled.error)).toBe(415);
    // Our own bucket setting (storage-js sends only Supabase's), so set with a plain request.
    const strict = await fetch(`${storageUrl()}/bucket/pngs`, {
      method: 'PUT',
      headers: { apikey: h.server.ctx.serviceRoleKey, 'content-type': 'application/json' },
      body: JSON.stringify({ content_check: 'strict' }),
    });
    expect(strict.status).toBe(200);
    const now = await pngs.upload('again.png', imageBytes('image/jpeg'), { contentType: 'image/png' });
    expect(statusOf(now.error)).toBe(415);
  });

  it('takes a standalone StorageClient with Authorization alone, and says "Invalid Compact JWS" without one', async () => {
    const standalone = new StorageClient(storageUrl(), { Authorization: `Bearer ${h.server.ctx.serviceRoleKey}` });
    expect((await standalone.getBucket('docs')).data?.id).toBe('docs');
    const asAlice = new StorageClient(storageUrl(), { Authorization: `Bearer ${alice.token}` });
    expect(
      (
        await asAlice
          .from('lot-images')
          .upload(`${alice.id}/a.png`, imageBytes('image/png'), { contentType: 'image/png' })
      ).error,
    ).toBeNull();
    expect((await new StorageClient(storageUrl()).listBuckets()).error?.message).toBe('Invalid Compact JWS');
    const notJwt = new StorageClient(storageUrl(), { apikey: 'test-api-key' });
    expect((await notJwt.listBuckets()).error?.message).toBe('Invalid Compact JWS');
    const forged = new StorageClient(storageUrl(), { Authorization: `Bearer ${alice.token.slice(0, -4)}AAAA` });
    expect(statusOf((await forged.listBuckets()).error)).toBe(401);
  });

  it('grants the request roles every privilege, so a policy for anonymous uploads works', async () => {
    expect((await service.storage.createBucket('test-bucket')).error).toBeNull();
    const anon = h.client().storage.from('test-bucket');
    expect(statusOf((await anon.upload('a.txt', 'x')).error)).toBe(403);
    await h.db.sql`create policy anon_test_bucket on storage.objects for all using (bucket_id = 'test-bucket')`;
    expect((await anon.upload('a.txt', 'x')).error).toBeNull();
    expect((await anon.download('a.txt')).error).toBeNull();
    expect((await anon.remove(['a.txt'])).data).toHaveLength(1);
    // A missing privilege is reported as one, not as a refused policy.
    await h.db.sql`revoke insert on storage.objects from anon`;
    try {
      const refused = await anon.upload('b.txt', 'x');
      expect(statusOf(refused.error)).toBe(403);
      expect(refused.error?.message).toBe('permission denied for table objects');
    } finally {
      await h.db.sql`grant insert on storage.objects to anon`;
      await h.db.sql`drop policy anon_test_bucket on storage.objects`;
    }
  });

  it('answers vector and analytics buckets with a clear "not supported"', async () => {
    const storage = new StorageClient(storageUrl(), { apikey: h.server.ctx.serviceRoleKey });
    const vectors = await storage.vectors.listBuckets();
    expect(vectors.error?.message).toBe('Vector buckets are not supported by this server');
    const res = await fetch(`${storageUrl()}/iceberg/bucket`, { headers: { apikey: h.server.ctx.serviceRoleKey } });
    expect(res.status).toBe(501);
    expect(await res.json()).toMatchObject({ message: 'Analytics buckets are not supported by this server' });
  });
});
