// Resumable uploads across instances: two servers on one database and one S3 store (docs/scaling.md) share an
// upload. A client starts on one and goes on on the other; chunks racing for one offset on both are taken once;
// a completion raced on both commits one object; the orphan sweep leaves a live upload's parts alone. The same
// on the filesystem backend, where two servers share one DATA_DIR and chunks are written in place.
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Upload } from 'tus-js-client';
import { sweepOrphans } from '@auction-ops/storage';
import { createS3Backend } from '@auction-ops/storage/s3';
import { imageBytes } from './storage-fixtures.js';
import { CHUNK, createUpload, patchChunk, runUpload, type TusTarget, tusOptions } from './storage-tus.fixture.js';
import type { SignedUpUser } from './support/test-server.js';
import { startTwoServers, type TwoServers } from './support/two-servers.js';

const BUCKET = 'yard-photos';
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('resumable uploads on two instances', () => {
  let twins: TwoServers;
  let alice: SignedUpUser;
  let onA: TusTarget;
  let onB: TusTarget;

  beforeAll(async () => {
    twins = await startTwoServers({ STORAGE_FILE_SIZE_LIMIT: String(60 * 1024 * 1024) });
    const made = await twins.a.client(twins.a.serviceRoleKey).storage.createBucket(BUCKET, { public: false });
    expect(made.error).toBeNull();
    alice = await twins.a.signUp('alice-tus-two@example.test');
    onA = { url: twins.a.url, anonKey: twins.a.anonKey, token: alice.token };
    onB = { url: twins.b.url, anonKey: twins.b.anonKey, token: alice.token };
  });
  afterAll(async () => twins?.stop());

  const objectName = (name: string) => `${alice.id}/${name}`;
  const onOther = (url: string) => `${twins.b.url}${new URL(url).pathname}`;

  it('takes the first chunk on A and the rest on B, and both serve the object', async () => {
    const bytes = imageBytes('image/png', 2 * CHUNK + 4321);
    const metadata = { bucketName: BUCKET, objectName: objectName('two/a-then-b.png'), contentType: 'image/png' };
    const first = new Upload(bytes, tusOptions(onA, metadata));
    await new Promise<void>((resolve, reject) => {
      first.options.onChunkComplete = () => void first.abort().then(resolve, reject);
      first.options.onError = reject;
      first.start();
    });
    const second = new Upload(bytes, tusOptions(onB, metadata, { uploadUrl: onOther(first.url!) }));
    const sentFromB: number[] = [];
    second.options.onBeforeRequest = (req) => {
      expect(req.getURL().startsWith(twins.b.url)).toBe(true);
      if (req.getMethod() === 'PATCH') sentFromB.push(Number(req.getHeader('Upload-Offset')));
    };
    await runUpload(second);
    expect(sentFromB).toEqual([CHUNK, 2 * CHUNK]);
    for (const server of [twins.a, twins.b]) {
      const got = await server.client(alice.token).storage.from(BUCKET).download(metadata.objectName);
      expect(got.error).toBeNull();
      expect(sha(Buffer.from(await got.data!.arrayBuffer()))).toBe(sha(bytes));
    }
  });

  it('takes a chunk raced on both instances at one offset once, and commits a raced completion once', async () => {
    const bytes = imageBytes('image/png', 3000);
    const name = objectName('two/raced.png');
    const url = await createUpload(onA, bytes.length, {
      bucketName: BUCKET,
      objectName: name,
      contentType: 'image/png',
    });
    const middle = await Promise.all([
      patchChunk(onA, url, 0, bytes.subarray(0, 1000)),
      patchChunk(onB, onOther(url), 0, bytes.subarray(0, 1000)),
    ]);
    expect(middle.map((r) => r.status).sort()).toEqual([204, 409]);

    // The orphan sweep, even with no grace at all, keeps the parts of an upload in progress.
    const backend = createS3Backend({
      bucket: twins.s3.bucket,
      region: 'us-east-1',
      endpoint: twins.s3.endpoint,
      forcePathStyle: true,
      accessKeyId: twins.s3.accessKeyId,
      secretAccessKey: twins.s3.secretAccessKey,
    });
    try {
      const swept = await sweepOrphans({ sql: twins.db.sql, backend, graceMs: 0 });
      const [upload] = await twins.db.sql<
        { parts: string[] }[]
      >`select parts::text[] as parts from storage.tus_uploads`;
      expect(upload!.parts).toHaveLength(1);
      expect(swept.removed).not.toContain(`${BUCKET}/${upload!.parts[0]}`);
    } finally {
      await backend.close();
    }

    const last = await Promise.all([
      patchChunk(onA, url, 1000, bytes.subarray(1000)),
      patchChunk(onB, onOther(url), 1000, bytes.subarray(1000)),
    ]);
    expect(last.map((r) => r.status).sort()).toEqual([204, 409]);
    const rows = await twins.db.sql`select version from storage.objects where name = ${name}`;
    expect(rows).toHaveLength(1);
    const got = await twins.b.client(alice.token).storage.from(BUCKET).download(name);
    expect(sha(Buffer.from(await got.data!.arrayBuffer()))).toBe(sha(bytes));
    expect(await twins.db.sql`select id from storage.tus_uploads`).toHaveLength(0);
  });
});

describe('resumable uploads on two instances sharing one DATA_DIR (filesystem backend)', () => {
  let twins: TwoServers;
  let alice: SignedUpUser;
  let onA: TusTarget;
  let onB: TusTarget;
  const dataDir = mkdtempSync(join(tmpdir(), 'auction-ops-tus-shared-'));

  beforeAll(async () => {
    twins = await startTwoServers({
      STORAGE_BACKEND: 'fs',
      DATA_DIR: dataDir,
      STORAGE_FILE_SIZE_LIMIT: String(60 * 1024 * 1024),
    });
    const made = await twins.a.client(twins.a.serviceRoleKey).storage.createBucket(BUCKET, { public: false });
    expect(made.error).toBeNull();
    alice = await twins.a.signUp('alice-tus-fs@example.test');
    onA = { url: twins.a.url, anonKey: twins.a.anonKey, token: alice.token };
    onB = { url: twins.b.url, anonKey: twins.b.anonKey, token: alice.token };
  });
  afterAll(async () => {
    await twins?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const objectName = (name: string) => `${alice.id}/${name}`;
  const onOther = (url: string) => `${twins.b.url}${new URL(url).pathname}`;
  const staged = () => readdirSync(join(dataDir, 'storage', 'tus'));

  it('resumes on B an upload begun on A, written in place, and both serve the object', async () => {
    const bytes = imageBytes('image/png', 2 * CHUNK + 4321);
    const metadata = { bucketName: BUCKET, objectName: objectName('fs/a-then-b.png'), contentType: 'image/png' };
    const first = new Upload(bytes, tusOptions(onA, metadata));
    await new Promise<void>((resolve, reject) => {
      first.options.onChunkComplete = () => void first.abort().then(resolve, reject);
      first.options.onError = reject;
      first.start();
    });
    // One staging file holds the first chunk; no part was put on the backend.
    expect(staged()).toEqual([first.url!.split('/').pop()]);
    const second = new Upload(bytes, tusOptions(onB, metadata, { uploadUrl: onOther(first.url!) }));
    await runUpload(second);
    for (const server of [twins.a, twins.b]) {
      const got = await server.client(alice.token).storage.from(BUCKET).download(metadata.objectName);
      expect(got.error).toBeNull();
      expect(sha(Buffer.from(await got.data!.arrayBuffer()))).toBe(sha(bytes));
    }
    const [row] = await twins.db.sql`select metadata->>'eTag' as etag from storage.objects
      where name = ${metadata.objectName}`;
    // Three chunks: the ETag is composed from their MD5s, as S3 does for a multipart upload.
    const md5 = (part: Buffer) => createHash('md5').update(part).digest();
    const parts = [0, CHUNK, 2 * CHUNK].map((at) => md5(bytes.subarray(at, at + CHUNK)));
    expect(row!.etag).toBe(`"${md5(Buffer.concat(parts)).toString('hex')}-3"`);
    expect(staged()).toEqual([]);
  });

  it('takes a chunk raced on both instances once, and commits a raced completion once', async () => {
    const bytes = imageBytes('image/png', 300_000);
    const name = objectName('fs/raced.png');
    const url = await createUpload(onA, bytes.length, {
      bucketName: BUCKET,
      objectName: name,
      contentType: 'image/png',
    });
    const middle = await Promise.all([
      patchChunk(onA, url, 0, bytes.subarray(0, 100_000)),
      patchChunk(onB, onOther(url), 0, bytes.subarray(0, 100_000)),
    ]);
    // The loser either found the claim held (423) or the offset moved on (409).
    expect(middle.map((r) => r.status).filter((status) => status === 204)).toHaveLength(1);
    expect(middle.map((r) => r.status).filter((status) => status !== 204)[0]).toBeOneOf([409, 423]);
    const last = await Promise.all([
      patchChunk(onA, url, 100_000, bytes.subarray(100_000)),
      patchChunk(onB, onOther(url), 100_000, bytes.subarray(100_000)),
    ]);
    expect(last.map((r) => r.status).filter((status) => status === 204)).toHaveLength(1);
    expect(await twins.db.sql`select version from storage.objects where name = ${name}`).toHaveLength(1);
    const got = await twins.b.client(alice.token).storage.from(BUCKET).download(name);
    expect(sha(Buffer.from(await got.data!.arrayBuffer()))).toBe(sha(bytes));
    expect(await twins.db.sql`select id from storage.tus_uploads`).toHaveLength(0);
    expect(staged()).toEqual([]);
  });
});
