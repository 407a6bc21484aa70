// Image transformations (/storage/v1/render/image) through supabase-js against a real server: output sizes
// and formats read back with sharp, the three resize modes, Accept negotiation, public, authenticated and
// signed access under the same rules as downloads, limits, hostile input, the disk cache with ETag and 304,
// and the render queue's refusal when full.
import { readdir, rm } from 'node:fs/promises';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import sharp from 'sharp';
import type { SupabaseClient } from '@supabase/supabase-js';
import type { StorageHarness, TestUser } from './storage-fixtures.js';
import { appUploadPath, startStorageServer, statusOf } from './storage-fixtures.js';
import { noisePng, pngBomb, stripes } from './storage-render-images.js';

const PUBLIC = 'lot-images';
const PRIVATE = 'private-photos';
const MAX_INPUT_BYTES = 2_000_000;

async function shape(bytes: ArrayBuffer | Buffer) {
  const meta = await sharp(Buffer.from(bytes as ArrayBuffer)).metadata();
  return { format: meta.format, width: meta.width, height: meta.height };
}

/** The red share of the leftmost pixel column's middle pixel: 1 for a red band kept, 0 for green. */
async function leftEdgeIsRed(bytes: ArrayBuffer): Promise<boolean> {
  const { data, info } = await sharp(Buffer.from(bytes)).raw().toBuffer({ resolveWithObject: true });
  const at = (Math.floor(info.height / 2) * info.width + 1) * info.channels;
  return data[at]! > 200 && data[at + 1]! < 60;
}

describe('image transformations', () => {
  let h: StorageHarness;
  let alice: TestUser;
  let bob: TestUser;
  let asAlice: SupabaseClient;
  let asBob: SupabaseClient;
  let anon: SupabaseClient;
  let jpegPath: string;

  const upload = async (bucket: string, path: string, bytes: Buffer, contentType: string) => {
    const up = await asAlice.storage.from(bucket).upload(path, bytes, { contentType, upsert: true });
    expect(up.error).toBeNull();
  };

  beforeAll(async () => {
    h = await startStorageServer('fs', {
      STORAGE_TRANSFORM_MAX_INPUT_BYTES: String(MAX_INPUT_BYTES),
      STORAGE_TRANSFORM_MAX_DIMENSION: '1000',
      STORAGE_TRANSFORM_CONCURRENCY: '1',
      STORAGE_TRANSFORM_QUEUE: '1',
    });
    alice = await h.createUser();
    bob = await h.createUser();
    asAlice = h.client(alice.token);
    asBob = h.client(bob.token);
    anon = h.client();
    const made = await h.client('service').storage.createBucket(PRIVATE, { public: false });
    expect(made.error).toBeNull();
    jpegPath = appUploadPath(alice.id, 'jpg');
    await upload(PUBLIC, jpegPath, await stripes(1200, 800, 'jpeg'), 'image/jpeg');
  });
  afterAll(async () => h?.close());

  const publicUrl = (path: string, transform: Record<string, unknown>) =>
    anon.storage.from(PUBLIC).getPublicUrl(path, { transform }).data.publicUrl;

  it('resizes a public JPEG through getPublicUrl, keeping JPEG for a client that takes any type', async () => {
    const url = publicUrl(jpegPath, { width: 300, height: 200 });
    expect(url).toContain(`/storage/v1/render/image/public/${PUBLIC}/${jpegPath}?width=300&height=200`);
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/jpeg');
    expect(res.headers.get('cache-control')).toBe('max-age=3600');
    expect(res.headers.get('vary')).toBe('Accept, Origin');
    // The gateway's headers travel in the route's own header object.
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(res.headers.get('x-transformations')).toBe('height:200,width:300,resizing_type:fill');
    expect(await shape(await res.arrayBuffer())).toEqual({ format: 'jpeg', width: 300, height: 200 });
  });

  it('crops for cover, fits inside for contain and stretches for fill', async () => {
    const get = async (resize: string) =>
      (await fetch(publicUrl(jpegPath, { width: 300, height: 300, resize }))).arrayBuffer();
    // One at a time: this server renders one image at once and lets one wait.
    const cover = await get('cover');
    const contain = await get('contain');
    const fill = await get('fill');
    expect(await shape(cover)).toMatchObject({ width: 300, height: 300 });
    expect(await shape(contain)).toMatchObject({ width: 300, height: 200 });
    expect(await shape(fill)).toMatchObject({ width: 300, height: 300 });
    // The red bands at the sides survive stretching (and fitting) but fall to the cover crop.
    expect(await leftEdgeIsRed(cover)).toBe(false);
    expect(await leftEdgeIsRed(fill)).toBe(true);
    expect(await leftEdgeIsRed(contain)).toBe(true);
  });

  it('transforms PNG and WebP sources, keeping the aspect ratio when one side is given', async () => {
    const png = appUploadPath(alice.id, 'png');
    const webp = appUploadPath(alice.id, 'webp');
    await upload(PUBLIC, png, await stripes(600, 400, 'png'), 'image/png');
    await upload(PUBLIC, webp, await stripes(800, 800, 'webp'), 'image/webp');
    const pngOut = await fetch(publicUrl(png, { width: 150 }));
    expect(pngOut.headers.get('content-type')).toBe('image/png');
    expect(await shape(await pngOut.arrayBuffer())).toEqual({ format: 'png', width: 150, height: 100 });
    const webpOut = await fetch(publicUrl(webp, { height: 120, quality: 50 }));
    expect(await shape(await webpOut.arrayBuffer())).toEqual({ format: 'webp', width: 120, height: 120 });
    // A smaller source is never enlarged.
    const small = await fetch(publicUrl(png, { width: 900 }));
    expect(await shape(await small.arrayBuffer())).toEqual({ format: 'png', width: 600, height: 400 });
  });

  it('answers AVIF or WebP by the Accept header unless format=origin, with its own ETag each', async () => {
    const url = publicUrl(jpegPath, { width: 100 });
    const as = async (accept: string, target = url) => {
      const res = await fetch(target, { headers: { Accept: accept } });
      return {
        type: res.headers.get('content-type'),
        etag: res.headers.get('etag'),
        ...(await shape(await res.arrayBuffer())),
      };
    };
    const avif = await as('image/avif,image/webp,*/*');
    const webp = await as('image/webp,*/*');
    const refused = await as('image/avif;q=0,image/webp,*/*');
    const origin = await as('image/avif,image/webp,*/*', publicUrl(jpegPath, { width: 100, format: 'origin' }));
    expect(avif).toMatchObject({ type: 'image/avif', format: 'heif', width: 100 });
    expect(webp).toMatchObject({ type: 'image/webp', format: 'webp', width: 100 });
    expect(refused.type).toBe('image/webp');
    expect(origin).toMatchObject({ type: 'image/jpeg', format: 'jpeg', width: 100 });
    expect(new Set([avif.etag, webp.etag, origin.etag]).size).toBe(3);
  });

  it('renders a private object for its owner through download() and a signed URL, never for another user', async () => {
    const path = appUploadPath(alice.id, 'jpg');
    await upload(PRIVATE, path, await stripes(400, 400, 'jpeg'), 'image/jpeg');
    const own = await asAlice.storage.from(PRIVATE).download(path, { transform: { width: 64, height: 32 } });
    expect(own.error).toBeNull();
    expect(await shape(await own.data!.arrayBuffer())).toEqual({ format: 'jpeg', width: 64, height: 32 });

    const other = await asBob.storage.from(PRIVATE).download(path, { transform: { width: 64 } });
    expect(statusOf(other.error)).toBe(404);
    const nobody = await fetch(`${h.server.url}/storage/v1/render/image/public/${PRIVATE}/${path}?width=64`);
    expect(nobody.status).toBe(404);

    const signed = await asAlice.storage.from(PRIVATE).createSignedUrl(path, 60, { transform: { width: 50 } });
    expect(signed.error).toBeNull();
    expect(signed.data!.signedUrl).toContain(`/storage/v1/render/image/sign/${PRIVATE}/${path}?token=`);
    // The transformation is the signer's: a width added to the URL changes nothing.
    const res = await fetch(`${signed.data!.signedUrl}&width=300`);
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await shape(await res.arrayBuffer())).toEqual({ format: 'jpeg', width: 50, height: 50 });
    const forged = await fetch(signed.data!.signedUrl.replace(path, appUploadPath(alice.id, 'jpg')));
    expect(forged.status).toBe(400);
    expect(
      (await asBob.storage.from(PRIVATE).createSignedUrl(path, 60, { transform: { width: 50 } })).error,
    ).not.toBeNull();
  });

  it('refuses bad options, oversized sources, decompression bombs and non-images with clear 4xx', async () => {
    // Each refusal on both paths: keeping the source's format (its header read first) and converting to WebP
    // (the header checked as the decoder opens it).
    const err = async (url: string, status: number, error: string) => {
      for (const accept of ['*/*', 'image/webp']) {
        const res = await fetch(url, { headers: { Accept: accept } });
        expect(res.status).toBe(status);
        // A refusal from inside the render still carries the gateway's headers.
        expect(res.headers.get('access-control-allow-origin')).toBe('*');
        expect(await res.json()).toMatchObject({ statusCode: String(status), error });
      }
    };
    await err(publicUrl(jpegPath, { width: 1001 }), 400, 'InvalidParameter');
    await err(publicUrl(jpegPath, { width: 100, quality: 5 }), 400, 'InvalidParameter');
    await err(publicUrl(jpegPath, { width: 100, resize: 'stretch' }), 400, 'InvalidParameter');
    const signBad = await asAlice.storage.from(PUBLIC).createSignedUrl(jpegPath, 60, { transform: { width: -5 } });
    expect(statusOf(signBad.error)).toBe(400);

    const bomb = appUploadPath(alice.id, 'png');
    await upload(PUBLIC, bomb, pngBomb(), 'image/png');
    await err(publicUrl(bomb, { width: 100 }), 413, 'ImageTooLarge');

    const big = appUploadPath(alice.id, 'png');
    const noise = await noisePng(1000, 1000);
    expect(noise.length).toBeGreaterThan(MAX_INPUT_BYTES);
    await upload(PUBLIC, big, noise, 'image/png');
    await err(publicUrl(big, { width: 100 }), 413, 'ImageTooLarge');

    const text = `${alice.id}/notes.txt`;
    await upload(PRIVATE, text, Buffer.from('not an image at all'), 'text/plain');
    const textOut = await asAlice.storage.from(PRIVATE).download(text, { transform: { width: 10 } });
    expect(statusOf(textOut.error)).toBe(400);
    // SVG is an image, but not one this server decodes (its loader parses XML and follows references).
    const svg = `${alice.id}/drawing.svg`;
    const drawing =
      '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>';
    await upload(PRIVATE, svg, Buffer.from(drawing), 'image/svg+xml');
    for (const accept of ['*/*', 'image/webp']) {
      const svgOut = await fetch(`${h.server.url}/storage/v1/render/image/authenticated/${PRIVATE}/${svg}?width=5`, {
        headers: { apikey: h.server.ctx.anonKey, Authorization: `Bearer ${alice.token}`, Accept: accept },
      });
      expect(svgOut.status).toBe(400);
      expect(await svgOut.json()).toMatchObject({ error: 'InvalidImage' });
    }
    // PNG's signature over garbage: recognised as PNG on upload, refused when decoded.
    const broken = appUploadPath(alice.id, 'png');
    await upload(
      PUBLIC,
      broken,
      Buffer.concat([(await stripes(64, 64, 'png')).subarray(0, 60), Buffer.alloc(500, 7)]),
      'image/png',
    );
    await err(publicUrl(broken, { width: 10 }), 400, 'InvalidImage');
    // The server is still serving.
    expect((await fetch(publicUrl(jpegPath, { width: 10 }))).status).toBe(200);
  });

  it('serves a repeat from the disk cache, 304 for its ETag, and a new rendering after a new upload', async () => {
    const path = appUploadPath(alice.id, 'jpg');
    await upload(PUBLIC, path, await stripes(500, 500, 'jpeg'), 'image/jpeg');
    const url = publicUrl(path, { width: 77 });
    const first = await fetch(url);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]{40}"$/);
    await first.arrayBuffer();
    // The cache file is written behind the answer: wait for it to appear.
    const cacheDir = join(h.dataDir, 'storage', 'render-cache');
    await vi.waitFor(async () =>
      expect((await readdir(cacheDir)).some((f) => /^[0-9a-f]{64}\.jpeg$/.test(f))).toBe(true),
    );

    const revalidated = await fetch(url, { headers: { 'If-None-Match': etag } });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get('access-control-allow-origin')).toBe('*');
    expect(revalidated.headers.get('etag')).toBe(etag);

    // With the source bytes gone from disk, only the cache can still answer.
    const [row] = await h.db.sql<{ version: string }[]>`select version from storage.objects where name = ${path}`;
    await rm(join(h.dataDir, 'storage', 'objects', PUBLIC, row!.version.slice(0, 2), row!.version));
    const cached = await fetch(url);
    expect(cached.status).toBe(200);
    expect(cached.headers.get('etag')).toBe(etag);
    expect(await shape(await cached.arrayBuffer())).toMatchObject({ width: 77 });
    // A rendering not cached has nothing to be made from: 404, as a download of the object would be.
    const missing = await fetch(publicUrl(path, { width: 78 }));
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: 'not_found' });

    await upload(PUBLIC, path, await stripes(300, 600, 'jpeg'), 'image/jpeg');
    const replaced = await fetch(url, { headers: { 'If-None-Match': etag } });
    expect(replaced.status).toBe(200);
    expect(replaced.headers.get('etag')).not.toBe(etag);
    expect(await shape(await replaced.arrayBuffer())).toEqual({ format: 'jpeg', width: 77, height: 154 });
  });

  it('renders off the event loop: the server keeps answering while a slow render runs', async () => {
    const path = appUploadPath(alice.id, 'jpg');
    const noisy = await sharp(await noisePng(1000, 1000))
      .jpeg({ quality: 70 })
      .toBuffer();
    await upload(PUBLIC, path, noisy, 'image/jpeg');
    // The server runs in this process, so this measures its event loop. AVIF encoding of a quarter megapixel of noise
    // takes hundreds of milliseconds of CPU; done on the loop, the loop's worst delay would be about as long.
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    const started = performance.now();
    const rendering = fetch(publicUrl(path, { width: 500, quality: 90 }), { headers: { Accept: 'image/avif' } });
    const pings: number[] = [];
    let done = false;
    void rendering.then(() => (done = true));
    while (!done) {
      const t = performance.now();
      expect((await fetch(`${h.server.url}/health`)).status).toBe(200);
      pings.push(performance.now() - t);
    }
    const res = await rendering;
    const renderMs = performance.now() - started;
    delay.disable();
    expect(await shape(await res.arrayBuffer())).toEqual({ format: 'heif', width: 500, height: 500 });
    expect(pings.length).toBeGreaterThan(1);
    expect(delay.max / 1e6).toBeLessThan(renderMs / 2);
  });

  it('refuses renders past the queue with 503 and Retry-After, and serves the rest', async () => {
    // A PNG (no shrink-on-load: each render decodes every pixel), so a render outlasts the requests' arrival.
    const path = appUploadPath(alice.id, 'png');
    await upload(PUBLIC, path, await stripes(2000, 2000, 'png'), 'image/png');
    // Concurrency 1 and one waiting place: of twelve distinct renders at once, at most two are taken.
    const answers = await Promise.all(
      [11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22].map(async (width) => {
        const res = await fetch(publicUrl(path, { width }), { headers: { Accept: 'image/avif' } });
        return { status: res.status, retry: res.headers.get('retry-after'), body: await res.arrayBuffer() };
      }),
    );
    const refused = answers.filter((a) => a.status === 503);
    expect(refused.length).toBeGreaterThan(0);
    expect(answers.filter((a) => a.status === 200).length).toBeGreaterThan(0);
    expect(refused[0]!.retry).toBe('1');
    expect(JSON.parse(Buffer.from(refused[0]!.body).toString())).toMatchObject({ statusCode: '503' });
  });
});
