// STORAGE_FILE_ETAG_ALGORITHM=mtime: an object's ETag is made from the time it was written, its size and its version,
// without hashing. Conditional requests work as with MD5 ETags, a new version gets a new ETag, and a resumable upload
// begun under one setting and finished under the other never gets an MD5 composed from some of its chunks only.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Upload } from 'tus-js-client';
import { imageBytes } from './storage-fixtures.js';
import { CHUNK, runUpload, type TusTarget, tusOptions } from './storage-tus.fixture.js';
import type { SignedUpUser, TestServer } from './support/test-server.js';
import { startTwoServers, type TwoServers } from './support/two-servers.js';

const BUCKET = 'etag-photos';
const MTIME_ETAG = /^"([0-9a-f]+)-([0-9a-f]+)-([0-9a-f]{32})"$/;

describe('mtime ETags (STORAGE_FILE_ETAG_ALGORITHM=mtime)', () => {
  let twins: TwoServers;
  let hashing: TestServer;
  let mtime: TestServer;
  let alice: SignedUpUser;
  const dataDir = mkdtempSync(join(tmpdir(), 'auction-ops-etag-'));

  beforeAll(async () => {
    // Two instances sharing one database and one DATA_DIR (docs/scaling.md), one hashing and one not.
    twins = await startTwoServers(
      { STORAGE_BACKEND: 'fs', DATA_DIR: dataDir, STORAGE_FILE_SIZE_LIMIT: String(20 * 1024 * 1024) },
      { a: { STORAGE_FILE_ETAG_ALGORITHM: 'md5' }, b: { STORAGE_FILE_ETAG_ALGORITHM: 'mtime' } },
    );
    ({ a: hashing, b: mtime } = twins);
    const made = await mtime.client(mtime.serviceRoleKey).storage.createBucket(BUCKET, { public: true });
    expect(made.error).toBeNull();
    alice = await mtime.signUp('alice-etag@example.test');
  });
  afterAll(async () => {
    await twins?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const target = (server: TestServer): TusTarget => ({ url: server.url, anonKey: server.anonKey, token: alice.token });
  const publicUrl = (name: string) => `${mtime.url}/storage/v1/object/public/${BUCKET}/${name}`;
  const storedEtag = async (name: string) =>
    ((await twins.db.sql`select metadata->>'eTag' as etag from storage.objects where name = ${name}`)[0]?.etag ??
      null) as string | null;

  it("makes an upload's ETag from its time of writing and its size, and answers If-None-Match with 304", async () => {
    const name = `${alice.id}/plain.png`;
    const bytes = imageBytes('image/png', 5000);
    const before = Date.now();
    const up = await mtime.client(alice.token).storage.from(BUCKET).upload(name, bytes, { contentType: 'image/png' });
    const after = Date.now();
    expect(up.error).toBeNull();

    const first = await fetch(publicUrl(name));
    expect(Buffer.from(await first.arrayBuffer()).equals(bytes)).toBe(true);
    const etag = first.headers.get('etag')!;
    const [, writtenAt, size, version] = MTIME_ETAG.exec(etag) ?? [];
    expect(Number.parseInt(size!, 16)).toBe(5000);
    expect(Number.parseInt(writtenAt!, 16)).toBeGreaterThanOrEqual(before);
    expect(Number.parseInt(writtenAt!, 16)).toBeLessThanOrEqual(after);
    const [row] = await twins.db
      .sql`select metadata->>'eTag' as etag, version from storage.objects where name = ${name}`;
    expect(row).toEqual({ etag, version: expect.any(String) });
    expect(version).toBe(row!.version.replaceAll('-', ''));
    expect((await fetch(publicUrl(name), { headers: { 'If-None-Match': etag } })).status).toBe(304);

    // The same bytes again are a new version: a new ETag, and the old one no longer matches.
    const again = await mtime.client(alice.token).storage.from(BUCKET).upload(name, bytes, {
      contentType: 'image/png',
      upsert: true,
    });
    expect(again.error).toBeNull();
    const newer = await storedEtag(name);
    expect(newer).toMatch(MTIME_ETAG);
    expect(newer).not.toBe(etag);
    expect((await fetch(publicUrl(name), { headers: { 'If-None-Match': etag } })).status).toBe(200);
  });

  it('leaves the other instance on MD5 ETags (the mixed uploads below start or end there)', async () => {
    const name = `${alice.id}/hashed.png`;
    const bytes = imageBytes('image/png', 3000);
    const up = await hashing.client(alice.token).storage.from(BUCKET).upload(name, bytes, { contentType: 'image/png' });
    expect(up.error).toBeNull();
    expect(await storedEtag(name)).toBe(`"${createHash('md5').update(bytes).digest('hex')}"`);
  });

  it("makes a resumable upload's ETag the same way", async () => {
    const name = `${alice.id}/resumable.png`;
    const bytes = imageBytes('image/png', CHUNK + 4321);
    await runUpload(new Upload(bytes, tusOptions(target(mtime), { bucketName: BUCKET, objectName: name })));
    const [, , size] = MTIME_ETAG.exec((await storedEtag(name)) ?? '') ?? [];
    expect(Number.parseInt(size!, 16)).toBe(bytes.length);
  });

  it.each([
    ['begun where chunks are hashed, finished where they are not', 'hashed-first', () => [hashing, mtime]],
    ['begun where chunks are not hashed, finished where they are', 'hashed-last', () => [mtime, hashing]],
  ])('never composes an MD5 ETag from some of the chunks: %s', async (_, file, servers) => {
    const [first, second] = servers();
    const name = `${alice.id}/${file}.png`;
    const bytes = imageBytes('image/png', CHUNK + 1234);
    const metadata = { bucketName: BUCKET, objectName: name, contentType: 'image/png' };
    const started = new Upload(bytes, tusOptions(target(first!), metadata));
    await new Promise<void>((resolve, reject) => {
      started.options.onChunkComplete = () => void started.abort().then(resolve, reject);
      started.options.onError = reject;
      started.start();
    });
    const uploadUrl = `${second!.url}${new URL(started.url!).pathname}`;
    await runUpload(new Upload(bytes, tusOptions(target(second!), metadata, { uploadUrl })));
    const [, , size] = MTIME_ETAG.exec((await storedEtag(name)) ?? '') ?? [];
    expect(Number.parseInt(size!, 16)).toBe(bytes.length);
  });
});
