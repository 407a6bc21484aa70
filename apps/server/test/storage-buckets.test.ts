// Bucket management through storage-js (createBucket, updateBucket, emptyBucket, deleteBucket, listBuckets
// options) against a real server: the service role and super admins manage, everyone else gets 403, and a
// change applies to the very next upload on this instance (the limits cache is dropped on change).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SupabaseClient } from '@supabase/supabase-js';
import type { StorageHarness, TestUser } from './storage-fixtures.js';
import { imageBytes, startStorageServer, statusOf } from './storage-fixtures.js';

describe.each(['fs', 's3'] as const)('bucket management on the %s backend', (backend) => {
  let h: StorageHarness;
  let alice: TestUser;
  let admin: TestUser;
  let service: SupabaseClient;
  let asAlice: SupabaseClient;
  let asAdmin: SupabaseClient;

  beforeAll(async () => {
    h = await startStorageServer(backend);
    alice = await h.createUser();
    admin = await h.createUser();
    await h.db.sql`insert into public.super_admins (user_id) values (${admin.id})`;
    service = h.client('service');
    asAlice = h.client(alice.token);
    asAdmin = h.client(admin.token);
  });
  afterAll(async () => h?.close());

  it('creates, reads, updates and deletes a bucket as the service role', async () => {
    const created = await service.storage.createBucket('docs', {
      public: false,
      fileSizeLimit: '20mb',
      allowedMimeTypes: ['image/*'],
    });
    expect(created).toEqual({ data: { name: 'docs' }, error: null });
    const { data } = await asAlice.storage.getBucket('docs');
    // Supabase's shape exactly: sizes in decimal units, the owner as `owner`.
    expect(data).toEqual({
      id: 'docs',
      name: 'docs',
      owner: null,
      public: false,
      file_size_limit: 20_000_000,
      allowed_mime_types: ['image/*'],
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(statusOf((await service.storage.createBucket('docs')).error)).toBe(409);

    const updated = await service.storage.updateBucket('docs', {
      public: true,
      fileSizeLimit: 2048,
      allowedMimeTypes: ['image/png'],
    });
    expect(updated).toEqual({ data: { message: 'Successfully updated' }, error: null });
    expect((await asAlice.storage.getBucket('docs')).data).toMatchObject({
      public: true,
      file_size_limit: 2048,
      allowed_mime_types: ['image/png'],
    });
    expect(statusOf((await service.storage.updateBucket('nope', { public: true })).error)).toBe(404);
    expect(statusOf((await service.storage.createBucket('Bad/Name')).error)).toBe(400);
    expect(statusOf((await service.storage.updateBucket('docs', { public: true, fileSizeLimit: -4 })).error)).toBe(400);

    expect(await service.storage.deleteBucket('docs')).toEqual({
      data: { message: 'Successfully deleted' },
      error: null,
    });
    expect(statusOf((await asAlice.storage.getBucket('docs')).error)).toBe(404);
  });

  it('refuses users and anonymous callers with 403, and lets super admins manage through RLS', async () => {
    const anon = h.client();
    for (const client of [asAlice, anon]) {
      expect(statusOf((await client.storage.createBucket('mine')).error)).toBe(403);
      expect(statusOf((await client.storage.updateBucket('lot-images', { public: false })).error)).toBe(403);
      expect(statusOf((await client.storage.emptyBucket('lot-images')).error)).toBe(403);
      expect(statusOf((await client.storage.deleteBucket('lot-images')).error)).toBe(403);
    }
    expect((await asAlice.storage.getBucket('lot-images')).data?.public).toBe(true);

    expect((await asAdmin.storage.createBucket('admin-made', { public: true })).error).toBeNull();
    const [row] = await h.db.sql`select owner_id from storage.buckets where id = 'admin-made'`;
    expect(row?.owner_id).toBe(admin.id);
    expect((await asAdmin.storage.updateBucket('admin-made', { public: false })).error).toBeNull();
    expect((await asAdmin.storage.deleteBucket('admin-made')).error).toBeNull();
  });

  it('applies a changed size limit and type list to the next upload at once', async () => {
    expect((await service.storage.createBucket('limits', { public: false, fileSizeLimit: 1000 })).error).toBeNull();
    const store = asAlice.storage.from('limits');
    expect(
      (await store.upload(`${alice.id}/a.png`, imageBytes('image/png', 800), { contentType: 'image/png' })).error,
    ).toBeNull();
    expect((await service.storage.updateBucket('limits', { public: false, fileSizeLimit: 500 })).error).toBeNull();
    expect(
      statusOf(
        (await store.upload(`${alice.id}/b.png`, imageBytes('image/png', 800), { contentType: 'image/png' })).error,
      ),
    ).toBe(413);
    expect(
      (
        await service.storage.updateBucket('limits', {
          public: false,
          fileSizeLimit: null as never,
          allowedMimeTypes: ['image/jpeg'],
        })
      ).error,
    ).toBeNull();
    expect(
      statusOf(
        (await store.upload(`${alice.id}/c.png`, imageBytes('image/png', 800), { contentType: 'image/png' })).error,
      ),
    ).toBe(415);
    expect(
      (await store.upload(`${alice.id}/d.jpg`, imageBytes('image/jpeg', 800), { contentType: 'image/jpeg' })).error,
    ).toBeNull();
    // Text in a bucket that lists a text type; the same bytes may not pose as an image.
    expect(
      (await service.storage.updateBucket('limits', { public: false, allowedMimeTypes: ['text/csv'] })).error,
    ).toBeNull();
    expect(
      (await store.upload(`${alice.id}/e.csv`, Buffer.from('a,b\n1,2\n'), { contentType: 'text/csv' })).error,
    ).toBeNull();
    expect(
      statusOf(
        (await store.upload(`${alice.id}/f.csv`, Buffer.from('a,b\n1,2\n'), { contentType: 'image/png' })).error,
      ),
    ).toBe(415);
  });

  it('refuses to delete a non-empty bucket (409), empties it with its bytes, then deletes it', async () => {
    expect((await service.storage.createBucket('full', { public: false })).error).toBeNull();
    const store = asAlice.storage.from('full');
    for (const name of ['x.png', 'y.png', 'sub/z.png']) {
      expect(
        (await store.upload(`${alice.id}/${name}`, imageBytes('image/png', 300), { contentType: 'image/png' })).error,
      ).toBeNull();
    }
    const refused = await service.storage.deleteBucket('full');
    expect(statusOf(refused.error)).toBe(409);
    expect(refused.error?.message).toBe('The bucket you tried to delete is not empty');
    expect(statusOf((await asAlice.storage.emptyBucket('full')).error)).toBe(403);
    expect(await asAdmin.storage.emptyBucket('full')).toEqual({
      data: { message: 'Empty bucket has been queued. Completion may take up to an hour.' },
      error: null,
    });
    const state = await h.consistency();
    expect(state.stored.filter((k) => k.startsWith('full/'))).toEqual([]);
    expect(state.stored).toEqual(state.rows);
    expect((await service.storage.deleteBucket('full')).error).toBeNull();
    expect(statusOf((await service.storage.emptyBucket('full')).error)).toBe(404);
  });

  it('lists buckets with limit, offset, search and sort', async () => {
    for (const id of ['list-a', 'list-b', 'list-c']) expect((await service.storage.createBucket(id)).error).toBeNull();
    const search = await asAlice.storage.listBuckets({ search: 'list-', sortColumn: 'name', sortOrder: 'desc' });
    expect(search.data?.map((b) => b.id)).toEqual(['list-c', 'list-b', 'list-a']);
    const page = await asAlice.storage.listBuckets({ search: 'list-', limit: 1, offset: 1 });
    expect(page.data?.map((b) => b.id)).toEqual(['list-b']);
  });
});
