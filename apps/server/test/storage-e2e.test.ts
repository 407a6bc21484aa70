// /storage/v1 end to end with the real storage-js client (through supabase-js) against a real server, once
// with the filesystem backend and once with the S3-compatible one (s3rver on loopback).
import { createHash } from 'node:crypto';
import { readdirSync, readlinkSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import type { StorageHarness, TestUser } from './storage-fixtures.js';
import {
  accessToken,
  appUploadPath,
  cutOffUpload,
  eventually,
  imageBytes,
  startStorageServer,
} from './storage-fixtures.js';
import { TEST_CLIENT_OPTIONS } from './support/test-server.js';

const BUCKET = 'lot-images';

describe.each(['fs', 's3'] as const)('storage-js against the %s backend', (backend) => {
  let h: StorageHarness;
  let url: string;
  let anonKey: string;
  let alice: TestUser;
  let bob: TestUser;
  let asAlice: SupabaseClient;
  let asBob: SupabaseClient;

  const clientFor = (token?: string) =>
    createClient(url, anonKey, {
      ...TEST_CLIENT_OPTIONS,
      global: token ? { headers: { Authorization: `Bearer ${token}` } } : {},
    });
  const rowCount = async (name: string) =>
    (await h.db.sql`select count(*)::int as n from storage.objects where name = ${name}`)[0]!.n as number;

  beforeAll(async () => {
    h = await startStorageServer(backend, { STORAGE_FILE_SIZE_LIMIT: String(1024 * 1024) });
    url = h.server.url;
    anonKey = h.server.ctx.anonKey;
    alice = await h.createUser();
    bob = await h.createUser();
    asAlice = clientFor(alice.token);
    asBob = clientFor(bob.token);
  });
  afterAll(async () => h?.close());
  afterEach(async () => {
    // Post-commit removal of replaced bytes runs before the response; nothing is left to settle.
    const state = await h.consistency();
    expect(state.stored).toEqual(state.rows);
    expect(state.spool).toEqual([]);
  });

  it('public downloads see writes through this server at once, and writes made elsewhere within a second', async () => {
    const path = appUploadPath(alice.id);
    const first = imageBytes('image/png', 3000);
    const second = imageBytes('image/png', 4000);
    expect((await asAlice.storage.from(BUCKET).upload(path, first, { contentType: 'image/png' })).error).toBeNull();
    const publicUrl = asAlice.storage.from(BUCKET).getPublicUrl(path).data.publicUrl;
    expect(Buffer.from(await (await fetch(publicUrl)).arrayBuffer()).equals(first)).toBe(true);
    // Replaced through the server: the next public GET has the new bytes, though the old row was just looked up.
    const upsert = await asAlice.storage.from(BUCKET).upload(path, second, { contentType: 'image/png', upsert: true });
    expect(upsert.error).toBeNull();
    expect(Buffer.from(await (await fetch(publicUrl)).arrayBuffer()).equals(second)).toBe(true);
    // The bucket made private behind the server's back (SQL): public GETs stop within the second a row is trusted.
    expect((await fetch(publicUrl)).status).toBe(200);
    await h.db.sql`update storage.buckets set public = false where id = ${BUCKET}`;
    try {
      await new Promise((r) => setTimeout(r, 1100));
      expect((await fetch(publicUrl)).status).toBe(404);
    } finally {
      await h.db.sql`update storage.buckets set public = true where id = ${BUCKET}`;
    }
    expect((await asAlice.storage.from(BUCKET).remove([path])).error).toBeNull();
    expect((await fetch(publicUrl)).status).toBe(404);
  });

  it('runs the acceptance flow: upload, public URL, list, download, signed URL, move, remove', async () => {
    const path = appUploadPath(alice.id);
    const bytes = imageBytes('image/png', 5000);
    const up = await asAlice.storage.from(BUCKET).upload(path, bytes, { contentType: 'image/png' });
    expect(up.error).toBeNull();
    expect(up.data?.fullPath).toBe(`${BUCKET}/${path}`);
    expect(up.data?.id).toMatch(/^[0-9a-f-]{36}$/);

    const {
      data: { publicUrl },
    } = asAlice.storage.from(BUCKET).getPublicUrl(path);
    const pub = await fetch(publicUrl);
    expect(pub.status).toBe(200);
    expect(pub.headers.get('content-type')).toBe('image/png');
    expect(pub.headers.get('content-length')).toBe('5000');
    expect(pub.headers.get('cache-control')).toBe('max-age=3600');
    expect(pub.headers.get('etag')).toBe(`"${createHash('md5').update(bytes).digest('hex')}"`);
    expect(Buffer.from(await pub.arrayBuffer()).equals(bytes)).toBe(true);

    const listed = await asAlice.storage.from(BUCKET).list(alice.id);
    expect(listed.error).toBeNull();
    const entry = listed.data!.find((e) => e.name === path.split('/')[1]);
    expect(entry?.metadata).toMatchObject({ size: 5000, mimetype: 'image/png', cacheControl: 'max-age=3600' });

    const down = await asAlice.storage.from(BUCKET).download(path);
    expect(down.error).toBeNull();
    expect(Buffer.from(await down.data!.arrayBuffer()).equals(bytes)).toBe(true);

    const signed = await asAlice.storage.from(BUCKET).createSignedUrl(path, 60);
    expect(signed.error).toBeNull();
    const viaSigned = await fetch(signed.data!.signedUrl);
    expect(viaSigned.status).toBe(200);
    expect(Buffer.from(await viaSigned.arrayBuffer()).equals(bytes)).toBe(true);
    const tampered = await fetch(signed.data!.signedUrl.replace(path, appUploadPath(alice.id)));
    expect(tampered.status).toBe(400);

    const moved = appUploadPath(alice.id);
    const mv = await asAlice.storage.from(BUCKET).move(path, moved);
    expect(mv.error).toBeNull();
    expect((await fetch(publicUrl)).status).toBe(404);
    expect((await asAlice.storage.from(BUCKET).download(moved)).error).toBeNull();

    const rm = await asAlice.storage.from(BUCKET).remove([moved]);
    expect(rm.error).toBeNull();
    expect(rm.data?.map((o) => o.name)).toEqual([moved]);
    expect(await rowCount(moved)).toBe(0);
  });

  it("refuses another user's overwrite, upsert, move and delete (RLS) and keeps the object", async () => {
    const path = appUploadPath(alice.id);
    const bytes = imageBytes('image/jpeg');
    expect((await asAlice.storage.from(BUCKET).upload(path, bytes, { contentType: 'image/jpeg' })).error).toBeNull();

    const over = await asBob.storage.from(BUCKET).upload(path, imageBytes('image/jpeg'), { contentType: 'image/jpeg' });
    expect((over.error as { status?: number } | null)?.status).toBe(403);
    const upsert = await asBob.storage
      .from(BUCKET)
      .upload(path, imageBytes('image/jpeg'), { contentType: 'image/jpeg', upsert: true });
    expect((upsert.error as { status?: number } | null)?.status).toBe(403);
    const update = await asBob.storage
      .from(BUCKET)
      .update(path, imageBytes('image/jpeg'), { contentType: 'image/jpeg' });
    // An update needs the object to be visible first: to Bob it does not exist.
    expect((update.error as { status?: number } | null)?.status).toBe(404);
    const mv = await asBob.storage.from(BUCKET).move(path, `${bob.id}/stolen.jpg`);
    expect((mv.error as { status?: number } | null)?.status).toBe(403);
    const removed = await asBob.storage.from(BUCKET).remove([path]);
    expect(removed.data).toEqual([]);
    const single = await fetch(`${url}/storage/v1/object/${BUCKET}/${path}`, {
      method: 'DELETE',
      headers: { apikey: anonKey, Authorization: `Bearer ${bob.token}` },
    });
    expect(single.status).toBe(403);
    expect(await single.json()).toEqual({
      statusCode: '403',
      error: 'Unauthorized',
      message: 'You may not delete this object',
    });
    const anonUpload = await clientFor()
      .storage.from(BUCKET)
      .upload(appUploadPath(alice.id), imageBytes('image/png'), { contentType: 'image/png' });
    expect((anonUpload.error as { status?: number } | null)?.status).toBe(403);

    const still = await asAlice.storage.from(BUCKET).download(path);
    expect(Buffer.from(await still.data!.arrayBuffer()).equals(bytes)).toBe(true);

    // The service role manages everything.
    const service = createClient(url, h.server.ctx.serviceRoleKey, TEST_CLIENT_OPTIONS);
    expect((await service.storage.from(BUCKET).remove([path])).data).toHaveLength(1);
  });

  it('answers 409 on a duplicate, replaces with x-upsert and removes the replaced bytes', async () => {
    const path = appUploadPath(alice.id);
    const store = asAlice.storage.from(BUCKET);
    expect((await store.upload(path, imageBytes('image/png'), { contentType: 'image/png' })).error).toBeNull();
    const keysBefore = (await h.server.ctx.sql`select 1`).length && (await backendKeys()).length;
    const dup = await store.upload(path, imageBytes('image/png'), { contentType: 'image/png' });
    expect((dup.error as { status?: number } | null)?.status).toBe(409);
    const replacement = imageBytes('image/gif', 777);
    expect((await store.upload(path, replacement, { contentType: 'image/gif', upsert: true })).error).toBeNull();
    expect((await backendKeys()).length).toBe(keysBefore);
    const got = await store.download(path);
    expect(got.data?.type).toBe('image/gif');
    expect(Buffer.from(await got.data!.arrayBuffer()).equals(replacement)).toBe(true);
    const updated = imageBytes('image/webp', 900);
    expect((await store.update(path, updated, { contentType: 'image/webp' })).error).toBeNull();
    expect((await backendKeys()).length).toBe(keysBefore);
    expect((await store.update(appUploadPath(alice.id), updated, { contentType: 'image/webp' })).error).toMatchObject({
      status: 404,
    });
  });

  async function backendKeys(): Promise<string[]> {
    const rows = await h.db.sql<
      { bucket_id: string; version: string }[]
    >`select bucket_id, version from storage.objects`;
    return rows.map((r) => `${r.bucket_id}/${r.version}`);
  }

  it('recognises image types from the bytes and enforces the size limit', async () => {
    const store = asAlice.storage.from(BUCKET);
    const before = await backendKeys();
    const text = await store.upload(appUploadPath(alice.id), Buffer.from('hello, this is not a picture at all!!'), {
      contentType: 'image/png',
    });
    expect(text.error).toMatchObject({ status: 415 });
    const lying = await store.upload(appUploadPath(alice.id), imageBytes('image/jpeg'), { contentType: 'image/png' });
    expect(lying.error).toMatchObject({ status: 415 });
    const declaredText = await store.upload(appUploadPath(alice.id), imageBytes('image/png'), {
      contentType: 'text/plain',
    });
    expect(declaredText.error).toMatchObject({ status: 415 });
    const heic = await store.upload(appUploadPath(alice.id, 'heic'), imageBytes('image/heic'), {
      contentType: 'image/heic',
    });
    expect(heic.error).toBeNull();
    const big = await store.upload(appUploadPath(alice.id), imageBytes('image/png', 1024 * 1024 + 1), {
      contentType: 'image/png',
    });
    expect(big.error).toMatchObject({ status: 413 });
    // Chunked (no Content-Length): refused while streaming.
    const chunks = async function* () {
      yield imageBytes('image/png', 64 * 1024);
      for (let i = 0; i < 20; i++) yield Buffer.alloc(64 * 1024, i);
    };
    const res = await fetch(`${url}/storage/v1/object/${BUCKET}/${appUploadPath(alice.id)}`, {
      method: 'POST',
      body: ReadableStreamFrom(chunks()),
      duplex: 'half',
      headers: { apikey: anonKey, Authorization: `Bearer ${alice.token}`, 'Content-Type': 'image/png' },
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ statusCode: '413' });
    // Only the HEIC upload was stored: no row and no bytes for the refused ones (see also afterEach).
    expect((await backendKeys()).length).toBe(before.length + 1);
  });

  it('leaves no object, bytes or spool file when an upload is cut off halfway', async () => {
    const path = appUploadPath(alice.id);
    const headers = { apikey: anonKey, Authorization: `Bearer ${alice.token}`, 'Content-Type': 'image/png' };
    await cutOffUpload(
      `${url}/storage/v1/object/${BUCKET}/${path}`,
      headers,
      1000_000,
      imageBytes('image/png', 400_000),
    );
    await eventually(async () => {
      const state = await h.consistency();
      expect(state.spool).toEqual([]);
      expect(state.stored).toEqual(state.rows);
    });
    expect(await rowCount(path)).toBe(0);
  });

  it('accepts multipart uploads with cache control and user metadata', async () => {
    const path = appUploadPath(alice.id, 'webp');
    const blob = new Blob([imageBytes('image/webp', 3000)], { type: 'image/webp' });
    const up = await asAlice.storage.from(BUCKET).upload(path, blob, { cacheControl: '60', metadata: { lot: 'A-17' } });
    expect(up.error).toBeNull();
    const info = await asAlice.storage.from(BUCKET).info(path);
    expect(info.error).toBeNull();
    expect(info.data).toMatchObject({
      name: path,
      bucketId: BUCKET,
      size: 3000,
      contentType: 'image/webp',
      cacheControl: 'max-age=60',
      metadata: { lot: 'A-17' },
    });
    expect((await asAlice.storage.from(BUCKET).exists(path)).data).toBe(true);
    expect((await asAlice.storage.from(BUCKET).exists(appUploadPath(alice.id))).data).toBe(false);
  });

  it('serves Range, If-None-Match, HEAD and ?download', async () => {
    const path = appUploadPath(alice.id);
    const bytes = imageBytes('image/png', 1000);
    await asAlice.storage.from(BUCKET).upload(path, bytes, { contentType: 'image/png' });
    const publicUrl = `${url}/storage/v1/object/public/${BUCKET}/${path}`;
    const ranged = await fetch(publicUrl, { headers: { Range: 'bytes=10-19' } });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('content-range')).toBe('bytes 10-19/1000');
    expect(Buffer.from(await ranged.arrayBuffer()).equals(bytes.subarray(10, 20))).toBe(true);
    const suffix = await fetch(publicUrl, { headers: { Range: 'bytes=-5' } });
    expect(Buffer.from(await suffix.arrayBuffer()).equals(bytes.subarray(995))).toBe(true);
    expect((await fetch(publicUrl, { headers: { Range: 'bytes=5000-' } })).status).toBe(416);
    const etag = (await fetch(publicUrl, { method: 'HEAD' })).headers.get('etag')!;
    const head = await fetch(publicUrl, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe('1000');
    expect(head.headers.get('last-modified')).toMatch(/GMT$/);
    expect((await fetch(publicUrl, { headers: { 'If-None-Match': etag } })).status).toBe(304);
    const dl = await fetch(`${publicUrl}?download=lot.png`);
    expect(dl.headers.get('content-disposition')).toContain('filename="lot.png"');
    // Every answer carries the gateway's headers, the piped ones (200, 206) as the others (304, 416).
    const origin = { Origin: 'https://yard.example' };
    for (const [status, extra] of [
      [200, {}],
      [206, { Range: 'bytes=0-9' }],
      [304, { 'If-None-Match': etag }],
      [416, { Range: 'bytes=5000-' }],
    ] as const) {
      const res = await fetch(publicUrl, { headers: { ...origin, ...extra } });
      expect(res.status).toBe(status);
      expect(res.headers.get('access-control-allow-origin'), String(status)).toBe('https://yard.example');
      expect(res.headers.get('vary'), String(status)).toContain('Origin');
      expect(res.headers.get('x-request-id'), String(status)).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.headers.get('x-content-type-options'), String(status)).toBe('nosniff');
      await res.arrayBuffer();
    }
  });

  it('a download the client abandons midway closes its file and leaves the server serving', async () => {
    const path = appUploadPath(alice.id);
    const bytes = imageBytes('image/png', 1000 * 1000);
    expect((await asAlice.storage.from(BUCKET).upload(path, bytes, { contentType: 'image/png' })).error).toBeNull();
    const publicUrl = `${url}/storage/v1/object/public/${BUCKET}/${path}`;
    const openObjects = () =>
      readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`).includes(join(h.dataDir, 'storage', 'objects'));
        } catch {
          return false; // closed meanwhile
        }
      });
    for (let i = 0; i < 5; i++) {
      await new Promise<void>((resolve, reject) => {
        const req = request(publicUrl, (res) => {
          res.once('data', () => {
            req.destroy();
            resolve();
          });
        });
        req.on('error', (error) => (req.destroyed ? resolve() : reject(error)));
        req.end();
      });
    }
    if (backend === 'fs') await eventually(async () => expect(openObjects()).toEqual([]));
    const whole = await fetch(publicUrl);
    expect(Buffer.from(await whole.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('lists folders like Supabase, with limit, offset, sortBy and search', async () => {
    const store = asAlice.storage.from(BUCKET);
    const root = `${alice.id}/listing`;
    for (const name of ['b.png', 'a.png', 'c.png', 'sub/x.png', 'sub/y.png', 'other/z.png']) {
      expect(
        (await store.upload(`${root}/${name}`, imageBytes('image/png', 100), { contentType: 'image/png' })).error,
      ).toBeNull();
    }
    const all = await store.list(root);
    expect(all.data!.map((e) => e.name)).toEqual(['other', 'sub', 'a.png', 'b.png', 'c.png']);
    expect(all.data![0]).toMatchObject({ id: null, metadata: null });
    const page = await store.list(root, { limit: 2, offset: 2 });
    expect(page.data!.map((e) => e.name)).toEqual(['a.png', 'b.png']);
    const desc = await store.list(root, { sortBy: { column: 'name', order: 'desc' } });
    expect(desc.data!.map((e) => e.name)).toEqual(['sub', 'other', 'c.png', 'b.png', 'a.png']);
    const search = await store.list(root, { search: 'B' });
    expect(search.data!.map((e) => e.name)).toEqual(['b.png']);
    const top = await asBob.storage.from(BUCKET).list('');
    expect(top.data!.some((e) => e.name === alice.id && e.id === null)).toBe(true);
  });

  it('copies an object and signs several URLs at once', async () => {
    const store = asAlice.storage.from(BUCKET);
    const path = appUploadPath(alice.id);
    const bytes = imageBytes('image/png', 400);
    await store.upload(path, bytes, { contentType: 'image/png' });
    const target = appUploadPath(alice.id);
    const copied = await store.copy(path, target);
    expect(copied.error).toBeNull();
    expect(copied.data?.path).toBe(`${BUCKET}/${target}`);
    const got = await store.download(target);
    expect(Buffer.from(await got.data!.arrayBuffer()).equals(bytes)).toBe(true);
    expect((await asBob.storage.from(BUCKET).copy(path, `${alice.id}/bob-copy.png`)).error).toMatchObject({
      status: 403,
    });
    const many = await store.createSignedUrls([path, target, `${alice.id}/missing.png`], 60);
    expect(many.data!.map((d) => d.error === null)).toEqual([true, true, false]);
    expect((await fetch(many.data![1]!.signedUrl!)).status).toBe(200);
  });

  it('reads bucket configuration', async () => {
    const { data: buckets } = await asAlice.storage.listBuckets();
    expect(buckets?.map((b) => b.id)).toContain(BUCKET);
    const { data: bucket } = await asAlice.storage.getBucket(BUCKET);
    expect(bucket).toMatchObject({
      id: BUCKET,
      public: true,
      allowed_mime_types: expect.arrayContaining(['image/png', 'image/heic']),
    });
    expect((await asAlice.storage.getBucket('nope')).error).toMatchObject({ status: 404 });
  });

  it('refuses unsafe paths, expired tokens and unknown objects in the storage error shape', async () => {
    const headers = { apikey: anonKey, Authorization: `Bearer ${alice.token}`, 'Content-Type': 'image/png' };
    const unsafe = [
      `${alice.id}/../${bob.id}/x.png`,
      `${alice.id}/./x.png`,
      `${alice.id}%2F..%2Fx.png`,
      `${alice.id}/a%00.png`,
      `${alice.id}/${'a'.repeat(1030)}.png`,
      `${alice.id}%5Cx.png`,
      `${alice.id}//x.png`,
    ];
    for (const tail of unsafe) {
      // Raw HTTP: fetch would resolve the dot segments before sending.
      const res = await rawRequest(
        `${url}/storage/v1/object/${BUCKET}/${tail}`,
        'POST',
        headers,
        imageBytes('image/png'),
      );
      expect(res.status, tail).toBe(400);
      expect(JSON.parse(res.body), tail).toMatchObject({ statusCode: '400', error: 'InvalidKey' });
    }
    const mv = await asAlice.storage.from(BUCKET).move(`${alice.id}/x.png`, `${alice.id}/../${bob.id}/x.png`);
    expect(mv.error).toMatchObject({ status: 400 });
    const expired = clientFor(accessToken(alice.id, { expiresIn: -10 }));
    expect((await expired.storage.from(BUCKET).list(alice.id)).error).toMatchObject({ status: 401 });
    const missing = await fetch(`${url}/storage/v1/object/public/${BUCKET}/${alice.id}/nothing.png`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ statusCode: '404', error: 'not_found', message: 'Object not found' });
  });
});

function rawRequest(
  target: string,
  method: string,
  headers: Record<string, string>,
  body: Buffer,
): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(target);
  const path = target.slice(target.indexOf('/', 'http://'.length));
  return new Promise((resolve, reject) => {
    const req = request(
      { hostname, port, path, method, headers: { ...headers, 'Content-Length': String(body.length) } },
      (res) => {
        let text = '';
        res
          .setEncoding('utf8')
          .on('data', (d: string) => {
            text += d;
          })
          .on('end', () => resolve({ status: res.statusCode!, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function ReadableStreamFrom(source: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  const it = source[Symbol.asyncIterator]();
  return new ReadableStream({
    async pull(controller) {
      const next = await it.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
  });
}
