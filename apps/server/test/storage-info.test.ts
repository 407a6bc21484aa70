// The reference table's remaining shapes through storage-js: info (FileObjectV2 keys), exists (true, false
// for missing or hidden, thrown errors for bad paths and expired tokens), HEAD statuses, list options.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SupabaseClient } from '@supabase/supabase-js';
import type { StorageHarness, TestUser } from './storage-fixtures.js';
import { accessToken, imageBytes, startStorageServer, statusOf } from './storage-fixtures.js';

describe('info, exists, HEAD and list options', () => {
  let h: StorageHarness;
  let alice: TestUser;
  let bob: TestUser;
  let asAlice: SupabaseClient;
  let asBob: SupabaseClient;
  const path = () => `${alice.id}/info.png`;

  beforeAll(async () => {
    h = await startStorageServer('fs');
    alice = await h.createUser();
    bob = await h.createUser();
    asAlice = h.client(alice.token);
    asBob = h.client(bob.token);
    expect((await h.client('service').storage.createBucket('private-docs', { public: false })).error).toBeNull();
    for (const bucket of ['lot-images', 'private-docs']) {
      expect(
        (
          await asAlice.storage
            .from(bucket)
            .upload(path(), imageBytes('image/png', 1234), { contentType: 'image/png', metadata: { lot: 7 } })
        ).error,
      ).toBeNull();
    }
  });
  afterAll(async () => h?.close());

  it("answers info with exactly the fields of Supabase's storage", async () => {
    const res = await fetch(`${h.server.url}/storage/v1/object/info/lot-images/${path()}`, {
      headers: { apikey: h.server.ctx.anonKey, Authorization: `Bearer ${alice.token}` },
    });
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual([
      'bucket_id',
      'cache_control',
      'content_type',
      'created_at',
      'etag',
      'id',
      'last_modified',
      'metadata',
      'name',
      'size',
      'version',
    ]);
    const { data } = await asAlice.storage.from('lot-images').info(path());
    expect(data).toMatchObject({
      name: path(),
      bucketId: 'lot-images',
      size: 1234,
      contentType: 'image/png',
      cacheControl: 'max-age=3600',
      metadata: { lot: 7 },
    });
    expect(data?.etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(new Date(data!.lastModified!).getTime()).toBeGreaterThan(0);
  });

  it('answers exists: true, false for missing or hidden objects, and throws on other errors', async () => {
    expect(await asAlice.storage.from('lot-images').exists(path())).toMatchObject({ data: true, error: null });
    expect(await asAlice.storage.from('private-docs').exists(path())).toMatchObject({ data: true, error: null });
    expect((await asAlice.storage.from('lot-images').exists(`${alice.id}/missing.png`)).data).toBe(false);
    // Bob cannot see alice's private object: it does not exist for him.
    expect((await asBob.storage.from('private-docs').exists(path())).data).toBe(false);
    expect((await asBob.storage.from('lot-images').exists(path())).data).toBe(true);
    await expect(asAlice.storage.from('lot-images').exists(`${alice.id}/a%00b.png`)).rejects.toMatchObject({
      status: 400,
    });
    const expired = h.client(accessToken(alice.id, { expiresIn: -5 }));
    await expect(expired.storage.from('lot-images').exists(path())).rejects.toMatchObject({ status: 401 });
  });

  it('answers HEAD with 200, 404 for hidden or missing objects and 400 for bad paths', async () => {
    const head = (bucket: string, tail: string, token: string) =>
      fetch(`${h.server.url}/storage/v1/object/${bucket}/${tail}`, {
        method: 'HEAD',
        headers: { apikey: h.server.ctx.anonKey, Authorization: `Bearer ${token}` },
      }).then((r) => r.status);
    expect(await head('lot-images', path(), bob.token)).toBe(200);
    expect(await head('private-docs', path(), alice.token)).toBe(200);
    expect(await head('private-docs', path(), bob.token)).toBe(404);
    expect(await head('lot-images', `${alice.id}/missing.png`, alice.token)).toBe(404);
    expect(await head('lot-images', `${alice.id}/a%2Fb.png`, alice.token)).toBe(400);
  });

  it('lists with the storage-js defaults, a trailing-slash prefix, and refuses bad options', async () => {
    const store = asAlice.storage.from('private-docs');
    expect((await store.list(alice.id)).data?.map((e) => e.name)).toEqual(['info.png']);
    expect((await store.list(`${alice.id}/`)).data?.map((e) => e.name)).toEqual(['info.png']);
    expect((await asBob.storage.from('private-docs').list(alice.id)).data).toEqual([]);
    expect(statusOf((await store.list(alice.id, { limit: 0 })).error)).toBe(400);
    expect(statusOf((await store.list(alice.id, { limit: 5000 })).error)).toBe(400);
    expect(statusOf((await store.list(alice.id, { offset: -1 })).error)).toBe(400);
    const bySize = await store.list(alice.id, { sortBy: { column: 'created_at', order: 'desc' } });
    expect(bySize.data?.[0]).toMatchObject({ name: 'info.png', metadata: { size: 1234, mimetype: 'image/png' } });
    expect(Object.keys(bySize.data![0]!).sort()).toEqual([
      'created_at',
      'id',
      'last_accessed_at',
      'metadata',
      'name',
      'updated_at',
    ]);
  });

  it('refuses an oversized JSON body with 413, whether declared or streamed without a length', async () => {
    const url = `${h.server.url}/storage/v1/object/list/private-docs`;
    const headers = {
      apikey: h.server.ctx.anonKey,
      Authorization: `Bearer ${alice.token}`,
      'Content-Type': 'application/json',
    };
    const big = JSON.stringify({ prefix: alice.id, search: 'x'.repeat(3 * 1024 * 1024) });
    const declared = await fetch(url, { method: 'POST', headers, body: big });
    expect(declared.status).toBe(413);
    expect(await declared.json()).toMatchObject({ statusCode: '413', error: 'Payload too large' });
    expect(declared.headers.get('connection')).toBe('close');
    const chunk = new TextEncoder().encode(big);
    const stream = new ReadableStream<Uint8Array>({
      start(ctl) {
        ctl.enqueue(chunk);
        ctl.close();
      },
    });
    const streamed = await fetch(url, { method: 'POST', headers, body: stream, duplex: 'half' } as RequestInit);
    expect(streamed.status).toBe(413);
    const small = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ prefix: alice.id }) });
    expect(small.status).toBe(200);
  });

  it(
    'lists under a folder whose name has characters outside the BMP (prefix measured ' +
      'in characters, not UTF-16 units)',
    async () => {
      const store = asAlice.storage.from('private-docs');
      const folder = `${alice.id}/📷 yard`;
      expect(
        (await store.upload(`${folder}/lot.png`, imageBytes('image/png', 10), { contentType: 'image/png' })).error,
      ).toBeNull();
      expect((await store.list(folder)).data?.map((e) => e.name)).toEqual(['lot.png']);
      expect((await store.list(alice.id)).data?.map((e) => e.name)).toEqual(['📷 yard', 'info.png']);
    },
  );
});
