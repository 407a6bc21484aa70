// Move and copy through storage-js beyond the basics, on both backends: copy with x-upsert, and moves and copies
// to another bucket (destinationBucket) with RLS checked on the source and the destination, and the
// destination bucket's limits applied.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SupabaseClient } from '@supabase/supabase-js';
import type { StorageHarness, TestUser } from './storage-fixtures.js';
import { appUploadPath, imageBytes, startStorageServer, statusOf } from './storage-fixtures.js';

const BUCKET = 'lot-images';

describe.each(['fs', 's3'] as const)('move and copy on the %s backend', (backend) => {
  let h: StorageHarness;
  let alice: TestUser;
  let bob: TestUser;
  let asAlice: SupabaseClient;
  let asBob: SupabaseClient;

  const read = async (client: SupabaseClient, bucket: string, path: string) => {
    const { data, error } = await client.storage.from(bucket).download(path);
    return error ? null : Buffer.from(await data!.arrayBuffer());
  };

  beforeAll(async () => {
    h = await startStorageServer(backend);
    alice = await h.createUser();
    bob = await h.createUser();
    asAlice = h.client(alice.token);
    asBob = h.client(bob.token);
    const service = h.client('service');
    expect((await service.storage.createBucket('private-docs', { public: false })).error).toBeNull();
    expect((await service.storage.createBucket('tiny', { public: false, fileSizeLimit: 100 })).error).toBeNull();
    expect(
      (await service.storage.createBucket('text-only', { public: false, allowedMimeTypes: ['text/*'] })).error,
    ).toBeNull();
  });
  afterAll(async () => h?.close());
  afterEach(async () => {
    const state = await h.consistency();
    expect(state.stored).toEqual(state.rows);
  });

  it('copies over an existing object only with x-upsert, removing the replaced bytes', async () => {
    const store = asAlice.storage.from(BUCKET);
    const [source, target] = [appUploadPath(alice.id), appUploadPath(alice.id)];
    const bytes = imageBytes('image/png', 700);
    expect((await store.upload(source, bytes, { contentType: 'image/png' })).error).toBeNull();
    expect((await store.upload(target, imageBytes('image/jpeg', 300), { contentType: 'image/jpeg' })).error).toBeNull();
    expect(statusOf((await store.copy(source, target)).error)).toBe(409);
    // storage-js's copy has no upsert option: send the header Supabase reads, as a client would.
    const res = await fetch(`${h.server.url}/storage/v1/object/copy`, {
      method: 'POST',
      headers: {
        apikey: h.server.ctx.anonKey,
        Authorization: `Bearer ${alice.token}`,
        'Content-Type': 'application/json',
        'x-upsert': 'true',
      },
      body: JSON.stringify({ bucketId: BUCKET, sourceKey: source, destinationKey: target }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { Key: string }).Key).toBe(`${BUCKET}/${target}`);
    expect((await read(asAlice, BUCKET, target))?.equals(bytes)).toBe(true);
    const [row] = await h.db.sql`select count(*)::int as n from storage.objects where name = ${target}`;
    expect(row?.n).toBe(1);
  });

  it('moves and copies across buckets when RLS allows both sides', async () => {
    const source = appUploadPath(alice.id);
    const bytes = imageBytes('image/png', 500);
    expect((await asAlice.storage.from(BUCKET).upload(source, bytes, { contentType: 'image/png' })).error).toBeNull();
    const copied = await asAlice.storage
      .from(BUCKET)
      .copy(source, `${alice.id}/copy.png`, { destinationBucket: 'private-docs' });
    expect(copied).toEqual({ data: { path: `private-docs/${alice.id}/copy.png` }, error: null });
    expect((await read(asAlice, 'private-docs', `${alice.id}/copy.png`))?.equals(bytes)).toBe(true);

    const moved = await asAlice.storage
      .from(BUCKET)
      .move(source, `${alice.id}/moved.png`, { destinationBucket: 'private-docs' });
    expect(moved.error).toBeNull();
    expect(await read(asAlice, BUCKET, source)).toBeNull();
    expect((await read(asAlice, 'private-docs', `${alice.id}/moved.png`))?.equals(bytes)).toBe(true);
    // The private bucket hides it from others.
    expect(await read(asBob, 'private-docs', `${alice.id}/moved.png`)).toBeNull();
  });

  it('refuses what RLS refuses on either side, and what the destination bucket would not accept', async () => {
    const source = appUploadPath(alice.id);
    expect(
      (await asAlice.storage.from(BUCKET).upload(source, imageBytes('image/png', 500), { contentType: 'image/png' }))
        .error,
    ).toBeNull();
    // Bob can read the public source but not write into alice's folder, nor move her object.
    expect(
      statusOf(
        (await asBob.storage.from(BUCKET).copy(source, `${alice.id}/x.png`, { destinationBucket: 'private-docs' }))
          .error,
      ),
    ).toBe(403);
    expect(
      statusOf(
        (await asBob.storage.from(BUCKET).move(source, `${bob.id}/x.png`, { destinationBucket: 'private-docs' })).error,
      ),
    ).toBe(403);
    // He may copy a public object into his own folder of another bucket.
    expect(
      (await asBob.storage.from(BUCKET).copy(source, `${bob.id}/mine.png`, { destinationBucket: 'private-docs' }))
        .error,
    ).toBeNull();
    // Alice cannot move her object into bob's folder (destination check).
    expect(
      statusOf(
        (await asAlice.storage.from(BUCKET).move(source, `${bob.id}/gift.png`, { destinationBucket: 'private-docs' }))
          .error,
      ),
    ).toBe(403);
    // A private source is hidden from bob: 404.
    expect(
      statusOf(
        (
          await asBob.storage
            .from('private-docs')
            .copy(`${alice.id}/none.png`, `${bob.id}/y.png`, { destinationBucket: BUCKET })
        ).error,
      ),
    ).toBe(404);
    expect(
      statusOf(
        (await asAlice.storage.from(BUCKET).copy(source, `${alice.id}/big.png`, { destinationBucket: 'tiny' })).error,
      ),
    ).toBe(413);
    expect(
      statusOf(
        (await asAlice.storage.from(BUCKET).move(source, `${alice.id}/img.png`, { destinationBucket: 'text-only' }))
          .error,
      ),
    ).toBe(415);
    expect(
      statusOf(
        (await asAlice.storage.from(BUCKET).copy(source, `${alice.id}/x.png`, { destinationBucket: 'nope' })).error,
      ),
    ).toBe(404);
    expect(
      statusOf(
        (await asAlice.storage.from(BUCKET).copy(source, `${alice.id}/x.png`, { destinationBucket: 'Bad/Id' })).error,
      ),
    ).toBe(400);
    expect(await read(asAlice, BUCKET, source)).not.toBeNull();
  });
});
