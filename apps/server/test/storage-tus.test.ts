// Resumable uploads (TUS 1.0) with tus-js-client and users signed up through supabase-js: an upload cut off at
// about half and resumed by a new client from the stored fingerprint, the checks at creation and completion,
// termination and the expiry sweep. The object appears once, complete, and no part is left behind.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Upload } from 'tus-js-client';
import { eventually, imageBytes, storageConsistency } from './storage-fixtures.js';
import {
  CHUNK,
  createUpload,
  encodeMetadata,
  MemoryUrlStorage,
  patchChunk,
  runUpload,
  statusOfTusError,
  type TusTarget,
  tusOptions,
  tusRequest,
} from './storage-tus.fixture.js';
import { type SignedUpUser, startTestServer, type TestServer } from './support/test-server.js';

const BUCKET = 'yard-photos';
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('resumable uploads', () => {
  let server: TestServer;
  let alice: SignedUpUser;
  let bob: SignedUpUser;
  let asAlice: TusTarget;
  let asBob: TusTarget;

  beforeAll(async () => {
    server = await startTestServer({
      STORAGE_FILE_SIZE_LIMIT: String(60 * 1024 * 1024),
      STORAGE_TUS_SWEEP_SECONDS: '1',
      WORKERS_ENABLED: 'false',
    });
    const admin = server.client(server.serviceRoleKey);
    const made = await admin.storage.createBucket(BUCKET, {
      public: false,
      fileSizeLimit: 20 * 1024 * 1024,
      allowedMimeTypes: ['image/png', 'image/jpeg'],
    });
    expect(made.error).toBeNull();
    alice = await server.signUp('alice-tus@example.test');
    bob = await server.signUp('bob-tus@example.test');
    asAlice = { url: server.url, anonKey: server.anonKey, token: alice.token };
    asBob = { url: server.url, anonKey: server.anonKey, token: bob.token };
  });
  afterAll(async () => server?.stop());

  const meta = (user: SignedUpUser, name: string, contentType = 'image/png') => ({
    bucketName: BUCKET,
    objectName: `${user.id}/${name}`,
    contentType,
    cacheControl: '3600',
  });
  const uploadsLeft = async () => (await server.db.sql`select id from storage.tus_uploads`).length;
  // The bytes of uploads in progress: parts on the backend no object names, and staging files (filesystem).
  const partsLeft = async () => {
    const state = await storageConsistency({ db: server.db, dataDir: server.dataDir });
    const staged = await readdir(join(server.dataDir, 'storage', 'tus')).catch(() => []);
    return [...state.stored.filter((key) => !state.rows.includes(key)), ...staged];
  };
  const head = (target: TusTarget, url: string) => tusRequest(target, url, { method: 'HEAD' });

  it('answers OPTIONS with the version, extensions and largest size', async () => {
    const res = await tusRequest(asAlice, '', { method: 'OPTIONS' });
    expect(res.status).toBe(204);
    expect(res.headers.get('tus-version')).toBe('1.0.0');
    expect(res.headers.get('tus-extension')).toBe('creation,termination,expiration');
    expect(res.headers.get('tus-max-size')).toBe(String(60 * 1024 * 1024));
  });

  it('lets browsers send the TUS headers and read the answers (CORS)', async () => {
    const preflight = await fetch(`${server.url}/storage/v1/upload/resumable`, {
      method: 'OPTIONS',
      headers: { origin: 'https://yard.example', 'access-control-request-method': 'POST' },
    });
    const allowed = preflight.headers.get('access-control-allow-headers')!.split(',');
    expect(allowed).toEqual(
      expect.arrayContaining(['tus-resumable', 'upload-length', 'upload-metadata', 'upload-offset']),
    );
    const url = await createUpload(asAlice, 10, meta(alice, 'cors.png'));
    const res = await tusRequest(asAlice, url, { method: 'HEAD', headers: { origin: 'https://yard.example' } });
    const exposed = res.headers.get('access-control-expose-headers')!.split(',');
    expect(exposed).toEqual(expect.arrayContaining(['Location', 'Upload-Offset', 'Upload-Length', 'Tus-Resumable']));
    expect((await tusRequest(asAlice, url, { method: 'DELETE' })).status).toBe(204);
  });

  it('resumes an upload cut off at about half from its offset, by a new client with the same fingerprint', async () => {
    const bytes = imageBytes('image/png', 8 * 1024 * 1024 + 123);
    const urls = new MemoryUrlStorage();
    const common = { fingerprint: async () => 'lot-42-photo-1', urlStorage: urls, removeFingerprintOnSuccess: true };
    const metadata = meta(alice, 'lot-42/photo-1.png');

    // The first client gives up once about half of the bytes are sent (the phone loses its network).
    const first = new Upload(bytes, tusOptions(asAlice, metadata, common));
    await new Promise<void>((resolve, reject) => {
      first.options.onProgress = (sent, total) => {
        if (sent >= total / 2) first.abort().then(resolve, reject);
      };
      first.options.onError = reject;
      first.start();
    });
    expect(first.url).toMatch(/\/storage\/v1\/upload\/resumable\/[0-9a-f-]{36}$/);

    // The server keeps what arrived before the break: HEAD tells where to go on from.
    let offset = 0;
    await eventually(async () => {
      const res = await head(asAlice, first.url!);
      expect(res.status).toBe(200);
      offset = Number(res.headers.get('upload-offset'));
      expect(offset).toBeGreaterThan(0);
    });
    expect(offset).toBeLessThan(bytes.length);
    expect(offset).toBeLessThanOrEqual(CHUNK);
    expect((await server.db.sql`select 1 from storage.objects where name = ${metadata.objectName}`).length).toBe(0);

    // A new client finds the upload by its fingerprint and sends only the rest.
    const patchedFrom: number[] = [];
    const second = new Upload(
      bytes,
      tusOptions(asAlice, metadata, {
        ...common,
        onBeforeRequest: (req) => {
          if (req.getMethod() === 'PATCH') patchedFrom.push(Number(req.getHeader('Upload-Offset')));
        },
      }),
    );
    const previous = await second.findPreviousUploads();
    expect(previous).toHaveLength(1);
    second.resumeFromPreviousUpload(previous[0]!);
    expect(await runUpload(second)).toBe(first.url);
    expect(patchedFrom[0]).toBe(offset);

    const got = await alice.client.storage.from(BUCKET).download(metadata.objectName);
    expect(got.error).toBeNull();
    expect(sha(Buffer.from(await got.data!.arrayBuffer()))).toBe(sha(bytes));
    const [row] = await server.db.sql`
      select owner_id, metadata->>'size' as size, metadata->>'mimetype' as type, metadata->>'cacheControl' as cache
      from storage.objects where bucket_id = ${BUCKET} and name = ${metadata.objectName}`;
    expect(row).toEqual({ owner_id: alice.id, size: String(bytes.length), type: 'image/png', cache: 'max-age=3600' });
    expect(await urls.findAllUploads()).toEqual([]);
    expect(await uploadsLeft()).toBe(0);
    expect(await partsLeft()).toEqual([]);
    expect((await head(asAlice, first.url!)).status).toBe(404);
  });

  it('refuses a chunk at the wrong offset with 409 and keeps the upload where it was', async () => {
    const url = await createUpload(asAlice, 1000, meta(alice, 'offset.png'));
    expect((await patchChunk(asAlice, url, 0, imageBytes('image/png', 400))).status).toBe(204);
    const wrong = await patchChunk(asAlice, url, 100, randomBytes(100));
    expect(wrong.status).toBe(409);
    expect(wrong.headers.get('tus-resumable')).toBe('1.0.0');
    expect((await head(asAlice, url)).headers.get('upload-offset')).toBe('400');
    const chunkType = await tusRequest(asAlice, url, {
      method: 'PATCH',
      headers: { 'Upload-Offset': '400', 'Content-Type': 'application/octet-stream' },
      body: randomBytes(10),
    });
    expect(chunkType.status).toBe(415);
    expect((await tusRequest(asAlice, url, { method: 'DELETE' })).status).toBe(204);
  });

  it('refuses bytes past Upload-Length with 413, declared or not', async () => {
    const url = await createUpload(asAlice, 500, meta(alice, 'over.png'));
    expect((await patchChunk(asAlice, url, 0, imageBytes('image/png', 600))).status).toBe(413);
    // Streamed without a length: cut at the first byte too many, nothing kept.
    const streamed = await tusRequest(asAlice, url, {
      method: 'PATCH',
      headers: { 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream' },
      body: new Blob([imageBytes('image/png', 700)]).stream(),
      duplex: 'half',
    } as RequestInit & { headers: Record<string, string> });
    expect(streamed.status).toBe(413);
    expect((await head(asAlice, url)).headers.get('upload-offset')).toBe('0');
    const tooBig = await tusRequest(asAlice, '', {
      method: 'POST',
      headers: {
        'Upload-Length': String(20 * 1024 * 1024 + 1),
        'Upload-Metadata': encodeMetadata(meta(alice, 'big.png')),
      },
    });
    expect(tooBig.status).toBe(413);
    expect((await tusRequest(asAlice, url, { method: 'DELETE' })).status).toBe(204);
  });

  it("hides one user's upload from another: HEAD, PATCH and DELETE answer 404", async () => {
    const url = await createUpload(asAlice, 1000, meta(alice, 'mine.png'));
    expect((await head(asBob, url)).status).toBe(404);
    expect((await patchChunk(asBob, url, 0, imageBytes('image/png', 100))).status).toBe(404);
    expect((await tusRequest(asBob, url, { method: 'DELETE' })).status).toBe(404);
    expect((await head(asAlice, url)).headers.get('upload-offset')).toBe('0');
    expect((await tusRequest(asAlice, url, { method: 'DELETE' })).status).toBe(204);
  });

  it("refuses at creation what the policy refuses (another user's folder) and types the bucket refuses", async () => {
    const intoBobs = new Upload(imageBytes('image/png', 1000), tusOptions(asAlice, meta(bob, 'not-mine.png')));
    expect(statusOfTusError(await runUpload(intoBobs).catch((e) => e))).toBe(403);
    const text = new Upload(Buffer.from('plain text'), tusOptions(asAlice, meta(alice, 'notes.txt', 'text/plain')));
    expect(statusOfTusError(await runUpload(text).catch((e) => e))).toBe(415);
    const noBucket = await tusRequest(asAlice, '', {
      method: 'POST',
      headers: { 'Upload-Length': '10', 'Upload-Metadata': encodeMetadata({ objectName: 'x.png' }) },
    });
    expect(noBucket.status).toBe(400);
    const noVersion = await fetch(`${server.url}/storage/v1/upload/resumable`, {
      method: 'POST',
      headers: { apikey: server.anonKey, authorization: `Bearer ${alice.token}`, 'Upload-Length': '10' },
    });
    expect(noVersion.status).toBe(412);
    expect(await uploadsLeft()).toBe(0);
  });

  it('checks again at completion: bytes that are not the declared image end the upload with 415', async () => {
    const bytes = Buffer.concat([Buffer.from('<html><script>alert(1)</script>'), randomBytes(2000)]);
    const upload = new Upload(bytes, tusOptions(asAlice, meta(alice, 'fake.png'), { chunkSize: 1000 }));
    expect(statusOfTusError(await runUpload(upload).catch((e) => e))).toBe(415);
    expect((await head(asAlice, upload.url!)).status).toBe(404);
    expect(await uploadsLeft()).toBe(0);
    expect(await partsLeft()).toEqual([]);
  });

  it('checks the policy again at completion: a name taken meanwhile ends a non-upsert upload with 409', async () => {
    const metadata = meta(alice, 'taken.png');
    const url = await createUpload(asAlice, 2000, metadata);
    const bytes = imageBytes('image/png', 2000);
    expect((await patchChunk(asAlice, url, 0, bytes.subarray(0, 1000))).status).toBe(204);
    const other = await alice.client.storage
      .from(BUCKET)
      .upload(metadata.objectName, imageBytes('image/png', 100), { contentType: 'image/png' });
    expect(other.error).toBeNull();
    expect((await patchChunk(asAlice, url, 1000, bytes.subarray(1000))).status).toBe(409);
    expect((await head(asAlice, url)).status).toBe(404);
    const [row] = await server.db
      .sql`select metadata->>'size' as size from storage.objects where name = ${metadata.objectName}`;
    expect(row).toEqual({ size: '100' });
    expect(await partsLeft()).toEqual([]);
  });

  it('leaves the last chunk to be sent again when the commit fails: the offset never shows a missing object', async () => {
    const metadata = meta(alice, 'flaky.png');
    const url = await createUpload(asAlice, 2000, metadata);
    const bytes = imageBytes('image/png', 2000);
    expect((await patchChunk(asAlice, url, 0, bytes.subarray(0, 1200))).status).toBe(204);
    // A failure inside the committing transaction (here a trigger; in life a lost database or a crash).
    await server.db.sql.unsafe(`
      create function storage.fail_flaky() returns trigger language plpgsql as $$
      begin if new.name like '%/flaky.png' then raise exception 'database went away'; end if; return new; end $$;
      create trigger fail_flaky before insert on storage.objects for each row execute function storage.fail_flaky();`);
    try {
      expect((await patchChunk(asAlice, url, 1200, bytes.subarray(1200))).status).toBe(500);
      expect((await head(asAlice, url)).headers.get('upload-offset')).toBe('1200');
      expect(await partsLeft()).toHaveLength(1);
    } finally {
      await server.db.sql.unsafe('drop trigger fail_flaky on storage.objects; drop function storage.fail_flaky()');
    }
    expect((await patchChunk(asAlice, url, 1200, bytes.subarray(1200))).status).toBe(204);
    const got = await alice.client.storage.from(BUCKET).download(metadata.objectName);
    expect(sha(Buffer.from(await got.data!.arrayBuffer()))).toBe(sha(bytes));
    expect(await partsLeft()).toEqual([]);
  });

  it('replaces an existing object with x-upsert', async () => {
    const metadata = meta(alice, 'replaced.png');
    await alice.client.storage
      .from(BUCKET)
      .upload(metadata.objectName, imageBytes('image/png', 10), { contentType: 'image/png' });
    const bytes = imageBytes('image/png', 5000);
    const upload = new Upload(
      bytes,
      tusOptions(asAlice, metadata, { headers: { ...tusOptions(asAlice, metadata).headers, 'x-upsert': 'true' } }),
    );
    await runUpload(upload);
    const got = await alice.client.storage.from(BUCKET).download(metadata.objectName);
    expect(sha(Buffer.from(await got.data!.arrayBuffer()))).toBe(sha(bytes));
    expect(await partsLeft()).toEqual([]);
  });

  it('commits an empty upload at creation (clients send no chunk for it)', async () => {
    const metadata = meta(alice, 'empty.png');
    await runUpload(new Upload(Buffer.alloc(0), tusOptions(asAlice, metadata)));
    const [row] = await server.db.sql`
      select metadata->>'size' as size from storage.objects where bucket_id = ${BUCKET} and name = ${metadata.objectName}`;
    expect(row).toEqual({ size: '0' });
    expect(await uploadsLeft()).toBe(0);
  });

  it('terminates an upload: DELETE removes it and its parts', async () => {
    const url = await createUpload(asAlice, 3000, meta(alice, 'dropped.png'));
    expect((await patchChunk(asAlice, url, 0, imageBytes('image/png', 1500))).status).toBe(204);
    expect(await partsLeft()).toHaveLength(1);
    const res = await tusRequest(asAlice, url, { method: 'DELETE' });
    expect(res.status).toBe(204);
    expect((await head(asAlice, url)).status).toBe(404);
    expect((await patchChunk(asAlice, url, 1500, randomBytes(10))).status).toBe(404);
    expect(await partsLeft()).toEqual([]);
  });

  it('keeps the bytes of a PATCH cut off by the client: HEAD answers where they end, and the rest completes it', async () => {
    const bytes = imageBytes('image/png', 300_000);
    const metadata = meta(alice, 'cut-off.png');
    const url = await createUpload(asAlice, bytes.length, metadata);
    const sent = 120_000;
    // Declares the whole length, sends part of it, then drops the connection (a phone losing its network).
    await new Promise<void>((resolve, reject) => {
      const req = request(url, {
        method: 'PATCH',
        headers: {
          authorization: `Bearer ${alice.token}`,
          apikey: server.anonKey,
          'Tus-Resumable': '1.0.0',
          'Upload-Offset': '0',
          'Content-Type': 'application/offset+octet-stream',
          'Content-Length': String(bytes.length),
        },
      });
      req.on('error', () => resolve());
      req.write(bytes.subarray(0, sent), () => setTimeout(() => req.destroy(), 300));
      req.on('close', resolve);
      req.on('response', () => reject(new Error('answered before the body ended')));
    });
    await eventually(async () => {
      expect((await head(asAlice, url)).headers.get('upload-offset')).toBe(String(sent));
    });
    expect((await patchChunk(asAlice, url, sent, bytes.subarray(sent))).status).toBe(204);
    const got = await alice.client.storage.from(BUCKET).download(metadata.objectName);
    expect(sha(Buffer.from(await got.data!.arrayBuffer()))).toBe(sha(bytes));
    expect(await partsLeft()).toEqual([]);
  });

  it('lets one request write an upload at a time: a second PATCH while the first is in flight is 423', async () => {
    const bytes = imageBytes('image/png', 200_000);
    const metadata = meta(alice, 'one-writer.png');
    const url = await createUpload(asAlice, bytes.length, metadata);
    const first = request(url, {
      method: 'PATCH',
      headers: {
        authorization: `Bearer ${alice.token}`,
        apikey: server.anonKey,
        'Tus-Resumable': '1.0.0',
        'Upload-Offset': '0',
        'Content-Type': 'application/offset+octet-stream',
        'Content-Length': String(bytes.length),
      },
    });
    const answered = new Promise<number>((resolve, reject) => {
      first.on('response', (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      first.on('error', reject);
    });
    first.write(bytes.subarray(0, 50_000));
    // The first request holds the claim once its first bytes are on their way to disk.
    await eventually(async () => {
      const [row] = await server.db.sql`select writer from storage.tus_uploads where id = ${url.split('/').pop()!}`;
      expect(row?.writer).not.toBeNull();
    });
    const second = await patchChunk(asAlice, url, 0, bytes);
    expect(second.status).toBe(423);
    first.end(bytes.subarray(50_000));
    expect(await answered).toBe(204);
    const got = await alice.client.storage.from(BUCKET).download(metadata.objectName);
    expect(sha(Buffer.from(await got.data!.arrayBuffer()))).toBe(sha(bytes));
    expect(await partsLeft()).toEqual([]);
  });

  it('refuses resumable uploads to anonymous callers, who share one key, even where the policy lets them write', async () => {
    await server.db.sql.unsafe(`
      insert into storage.buckets (id, name, public) values ('open-drop', 'open-drop', true);
      create policy open_drop_anon on storage.objects for all to anon
        using (bucket_id = 'open-drop') with check (bucket_id = 'open-drop');`);
    const asAnon: TusTarget = { url: server.url, anonKey: server.anonKey, token: server.anonKey };
    const anonClient = server.client();
    const plain = await anonClient.storage.from('open-drop').upload('drop/plain.png', imageBytes('image/png', 100));
    expect(plain.error).toBeNull();
    const created = await tusRequest(asAnon, '', {
      method: 'POST',
      headers: {
        'Upload-Length': '100',
        'Upload-Metadata': encodeMetadata({ bucketName: 'open-drop', objectName: 'drop/resumable.png' }),
      },
    });
    expect(created.status).toBe(403);
    // An anonymous upload recorded before this rule (owner key 'anon'): no anonymous caller may go on with it.
    const id = randomUUID();
    await server.db.sql`
      insert into storage.tus_uploads (id, bucket_id, name, owner_key, upload_length, upsert, cache_control, expires_at)
      values (${id}, 'open-drop', 'drop/old.png', 'anon', 100, false, 'max-age=3600', now() + interval '1 hour')`;
    const url = `${server.url}/storage/v1/upload/resumable/${id}`;
    expect((await head(asAnon, url)).status).toBe(404);
    expect((await patchChunk(asAnon, url, 0, imageBytes('image/png', 100))).status).toBe(404);
    expect((await tusRequest(asAnon, url, { method: 'DELETE' })).status).toBe(404);
    await server.db.sql`delete from storage.tus_uploads where id = ${id}`;
  });

  it('sweeps abandoned uploads past their expiry, parts included', async () => {
    const url = await createUpload(asAlice, 3000, meta(alice, 'abandoned.png'));
    const created = await head(asAlice, url);
    expect(new Date(created.headers.get('upload-expires')!).getTime()).toBeGreaterThan(Date.now() + 23 * 3600_000);
    expect((await patchChunk(asAlice, url, 0, imageBytes('image/png', 1000))).status).toBe(204);
    const live = await createUpload(asAlice, 3000, meta(alice, 'still-going.png'));
    const id = url.split('/').pop()!;
    await server.db.sql`update storage.tus_uploads set expires_at = now() - interval '1 second' where id = ${id}`;
    // An expired upload is gone at once for the client, and the sweep (every second here) removes its parts.
    expect((await head(asAlice, url)).status).toBe(404);
    await eventually(async () => {
      expect(await server.db.sql`select id from storage.tus_uploads where id = ${id}`).toHaveLength(0);
      // Only the live upload's staging file is left.
      expect(await partsLeft()).toEqual([live.split('/').pop()]);
    });
    expect((await head(asAlice, live)).status).toBe(200);
    expect((await tusRequest(asAlice, live, { method: 'DELETE' })).status).toBe(204);
  });
});
