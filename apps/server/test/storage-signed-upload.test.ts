// Signed upload URLs through storage-js (createSignedUploadUrl, uploadToSignedUrl) against a real server on
// both backends: one path per token, expiry, the creator owns the upload, content checks and size limit hold.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SupabaseClient } from '@supabase/supabase-js';
import { createUploadUrlSigner } from '@auction-ops/storage';
import type { StorageHarness, TestUser } from './storage-fixtures.js';
import { appUploadPath, imageBytes, JWT_SECRET, startStorageServer, statusOf } from './storage-fixtures.js';

const BUCKET = 'lot-images';

describe.each(['fs', 's3'] as const)('signed upload URLs on the %s backend', (backend) => {
  let h: StorageHarness;
  let alice: TestUser;
  let bob: TestUser;
  let asAlice: SupabaseClient;
  let anon: SupabaseClient;

  beforeAll(async () => {
    h = await startStorageServer(backend, { STORAGE_FILE_SIZE_LIMIT: String(64 * 1024) });
    alice = await h.createUser();
    bob = await h.createUser();
    asAlice = h.client(alice.token);
    anon = h.client();
  });
  afterAll(async () => h?.close());
  afterEach(async () => {
    const state = await h.consistency();
    expect(state.stored).toEqual(state.rows);
    expect(state.spool).toEqual([]);
  });

  it('lets anyone holding the token upload that one path, owned by the creator', async () => {
    const path = appUploadPath(alice.id);
    const signed = await asAlice.storage.from(BUCKET).createSignedUploadUrl(path);
    expect(signed.error).toBeNull();
    expect(signed.data?.signedUrl).toContain(`/storage/v1/object/upload/sign/${BUCKET}/${path}?token=`);
    const bytes = imageBytes('image/png', 3000);
    // No user session: the token is the authorization.
    const up = await anon.storage
      .from(BUCKET)
      .uploadToSignedUrl(path, signed.data!.token, bytes, { contentType: 'image/png' });
    expect(up.error).toBeNull();
    expect(up.data?.fullPath).toBe(`${BUCKET}/${path}`);
    const [row] = await h.db.sql`select owner_id, metadata->>'size' as size from storage.objects where name = ${path}`;
    expect(row).toEqual({ owner_id: alice.id, size: '3000' });
    const got = await asAlice.storage.from(BUCKET).download(path);
    expect(Buffer.from(await got.data!.arrayBuffer()).equals(bytes)).toBe(true);

    // Without upsert the token cannot replace what it uploaded; with upsert it can.
    const again = await anon.storage
      .from(BUCKET)
      .uploadToSignedUrl(path, signed.data!.token, imageBytes('image/png'), { contentType: 'image/png' });
    expect(statusOf(again.error)).toBe(409);
    const replacing = await asAlice.storage.from(BUCKET).createSignedUploadUrl(path, { upsert: true });
    const replaced = await anon.storage
      .from(BUCKET)
      .uploadToSignedUrl(path, replacing.data!.token, imageBytes('image/gif', 500), { contentType: 'image/gif' });
    expect(replaced.error).toBeNull();
    expect((await asAlice.storage.from(BUCKET).info(path)).data).toMatchObject({ size: 500, contentType: 'image/gif' });
  });

  it('takes an upload to the signed URL without an API key, as a browser form would send it', async () => {
    const path = appUploadPath(alice.id);
    const signed = await asAlice.storage.from(BUCKET).createSignedUploadUrl(path);
    const bytes = imageBytes('image/png', 1200);
    const res = await fetch(signed.data!.signedUrl, {
      method: 'PUT',
      headers: { 'content-type': 'image/png', 'x-upsert': 'false' },
      body: bytes,
    });
    expect(res.status).toBe(200);
    expect((await asAlice.storage.from(BUCKET).info(path)).data).toMatchObject({ size: 1200 });
    // Creating a signed upload URL still needs a key or a token (storage's own answer without either).
    const create = await fetch(signed.data!.signedUrl.replace(/\?token=.*$/, ''), { method: 'POST' });
    expect(create.status).toBe(400);
    expect(await create.json()).toEqual({ statusCode: '400', error: 'InvalidJWT', message: 'Invalid Compact JWS' });
  });

  it('binds a token to its path and refuses forged, expired and other-purpose tokens', async () => {
    const path = appUploadPath(alice.id);
    const { data } = await asAlice.storage.from(BUCKET).createSignedUploadUrl(path);
    const other = appUploadPath(alice.id);
    const elsewhere = await anon.storage
      .from(BUCKET)
      .uploadToSignedUrl(other, data!.token, imageBytes('image/png'), { contentType: 'image/png' });
    expect(statusOf(elsewhere.error)).toBe(400);
    const expired = createUploadUrlSigner(JWT_SECRET, () => Date.now() - 3 * 3600_000).sign(
      { url: `${BUCKET}/${other}`, role: 'authenticated', sub: alice.id, upsert: false },
      7200,
    );
    const late = await anon.storage
      .from(BUCKET)
      .uploadToSignedUrl(other, expired, imageBytes('image/png'), { contentType: 'image/png' });
    expect(statusOf(late.error)).toBe(400);
    expect(late.error?.message).toMatch(/expired/);
    const download = await asAlice.storage
      .from(BUCKET)
      .upload(other, imageBytes('image/png'), { contentType: 'image/png' });
    expect(download.error).toBeNull();
    const signedDownload = await asAlice.storage.from(BUCKET).createSignedUrl(other, 60);
    const downloadToken = new URL(signedDownload.data!.signedUrl).searchParams.get('token')!;
    const misuse = await anon.storage
      .from(BUCKET)
      .uploadToSignedUrl(path, downloadToken, imageBytes('image/png'), { contentType: 'image/png' });
    expect(statusOf(misuse.error)).toBe(400);
    expect(await h.db.sql`select 1 from storage.objects where name = ${path}`).toHaveLength(0);
  });

  it('creates URLs only for paths the caller may write (RLS 403, duplicate 409, anonymous 403)', async () => {
    const asBob = h.client(bob.token);
    expect(statusOf((await asBob.storage.from(BUCKET).createSignedUploadUrl(appUploadPath(alice.id))).error)).toBe(403);
    expect(statusOf((await anon.storage.from(BUCKET).createSignedUploadUrl(appUploadPath(alice.id))).error)).toBe(403);
    const path = appUploadPath(alice.id);
    expect(
      (await asAlice.storage.from(BUCKET).upload(path, imageBytes('image/png'), { contentType: 'image/png' })).error,
    ).toBeNull();
    expect(statusOf((await asAlice.storage.from(BUCKET).createSignedUploadUrl(path)).error)).toBe(409);
    expect(
      statusOf((await asAlice.storage.from('no-such-bucket').createSignedUploadUrl(`${alice.id}/x.png`)).error),
    ).toBe(404);
    // The service role may sign any path; the upload then has no owner.
    const service = h.client('service');
    const free = appUploadPath(bob.id);
    const { data } = await service.storage.from(BUCKET).createSignedUploadUrl(free);
    expect(
      (
        await anon.storage
          .from(BUCKET)
          .uploadToSignedUrl(free, data!.token, imageBytes('image/jpeg'), { contentType: 'image/jpeg' })
      ).error,
    ).toBeNull();
    expect((await h.db.sql`select owner_id from storage.objects where name = ${free}`)[0]?.owner_id).toBeNull();
  });

  it('applies the content checks and the size limit of normal uploads', async () => {
    const path = appUploadPath(alice.id);
    const { data } = await asAlice.storage.from(BUCKET).createSignedUploadUrl(path);
    const text = await anon.storage
      .from(BUCKET)
      .uploadToSignedUrl(path, data!.token, Buffer.from('not an image, just text....................'), {
        contentType: 'image/png',
      });
    expect(statusOf(text.error)).toBe(415);
    const big = await anon.storage
      .from(BUCKET)
      .uploadToSignedUrl(path, data!.token, imageBytes('image/png', 65 * 1024), { contentType: 'image/png' });
    expect(statusOf(big.error)).toBe(413);
    expect(await h.db.sql`select 1 from storage.objects where name = ${path}`).toHaveLength(0);
  });
});
