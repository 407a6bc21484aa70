// Fault injection against every upload path of one real server run with WEB_CONCURRENCY=2, as a hostile client
// would: oversized bodies (chunked and with an honest Content-Length), a Content-Length smaller than the body, a body
// cut off mid-way, a slow drip, malformed multipart, binary junk and one 10 MB line. Each case asserts the
// contract's answer and that nothing was half-written; after each, no worker process has died or been replaced.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@supabase/supabase-js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { signApiKey } from '@auction-ops/auth-core';
import { findFreePort } from '@auction-ops/database';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { type ServerProcess, processEnv, serverProcess, workerPids } from './support/test-server.js';
import { CLIENT_OPTIONS, PASSWORD, until } from './functions-notify.fixture.js';
import { chunksOf, multipartBody, type RawRequest, rawRequest } from './fault-injection.fixture.js';
import { imageBytes, storageConsistency } from './storage-fixtures.js';

const SECRET = 'f'.repeat(40);
const MB = 1024 * 1024;
const IMPORT_LIMIT = 12 * MB;
const STORAGE_LIMIT = MB;
const IDLE_MS = 1000;

let db: TestDatabase;
let dataDir: string;
let server: ServerProcess;
let port: number;
let pids: number[];
let headers: Record<string, string>;
let auctionId: string;
let userId: string;
let anonKey: string;

beforeAll(async () => {
  db = await createTestDatabase([]);
  dataDir = mkdtempSync(join(tmpdir(), 'auction-ops-faults-'));
  port = await findFreePort();
  const env = processEnv(
    { dataDir, databaseUrl: db.ownerUrl, jwtSecret: SECRET },
    {
      WEB_CONCURRENCY: '2',
      LOG_LEVEL: 'info',
      RATE_LIMITS_ENABLED: 'false',
      WEBHOOK_DISPATCHER_ENABLED: 'false',
      PENDING_CHECK_ENABLED: 'false',
      FUNCTION_RATE_LIMITS: 'import-csv=1000/hour',
      IMPORT_MAX_BYTES: String(IMPORT_LIMIT),
      STORAGE_FILE_SIZE_LIMIT: String(STORAGE_LIMIT),
      BODY_IDLE_TIMEOUT_MS: String(IDLE_MS),
    },
  );
  const proc = serverProcess(env, port);
  server = proc.start();
  await until(proc.healthy, 'the server', 60_000);
  await until(() => workerPids(server.child.pid!).length === 2, 'two workers');
  pids = workerPids(server.child.pid!);
  anonKey = await signApiKey(SECRET, 'anon');
  const client = createClient(`http://127.0.0.1:${port}`, anonKey, CLIENT_OPTIONS);
  const { data, error } = await client.auth.signUp({ email: 'hostile@faults.test', password: PASSWORD });
  if (error) throw error;
  userId = data.user!.id;
  headers = { apikey: anonKey, authorization: `Bearer ${data.session!.access_token}` };
  const { data: auction, error: failed } = await client
    .from('auctions')
    .insert({ name: 'Faults', slug: 'faults' })
    .select('id')
    .single();
  if (failed) throw failed;
  auctionId = auction.id;
}, 120_000);

afterAll(async () => {
  server?.child.kill('SIGTERM');
  await server?.exited;
  await db?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

afterEach(() => {
  // Zero restarts: the primary never logged one and the same two worker processes still serve.
  expect(server.output()).not.toContain('server worker exited');
  expect(workerPids(server.child.pid!)).toEqual(pids);
});

const send = (r: Omit<RawRequest, 'headers'> & { headers?: Record<string, string> }) =>
  rawRequest(port, { ...r, headers: { ...headers, ...r.headers } });

/** The SSE events of an answer's body. */
function events(body: string): Array<{ event: string; data: Record<string, unknown> }> {
  return body
    .split('\n\n')
    .filter((b) => b.includes('event: '))
    .map((b) => {
      const line = (n: string) =>
        b
          .split('\n')
          .find((l) => l.startsWith(`${n}: `))
          ?.slice(n.length + 2) ?? '';
      return { event: line('event'), data: JSON.parse(line('data')) };
    });
}

/** The dataset's status once it has left `importing` (within 10 s), and whether any staging table is left. */
async function settledDataset(name: string): Promise<{ status: string; row_count: number; leftovers: number }> {
  await until(
    async () => {
      const [row] = await db.sql`select status from public.datasets where name = ${name}`;
      return row !== undefined && row.status !== 'importing';
    },
    `dataset ${name} to settle`,
    10_000,
  );
  const [row] = await db.sql`select status, row_count from public.datasets where name = ${name}`;
  const [tables] = await db.sql`select count(*)::int as n from reporting_data.imports i
    join public.datasets d on d.id = i.dataset_id where d.name = ${name}`;
  const [staged] = await db.sql`select count(*)::int as n from pg_tables where schemaname = 'reporting_data'
    and tablename like 'ds_%' and tablename not in (select table_name from public.datasets where table_name is not null)`;
  return { status: row.status, row_count: row.row_count, leftovers: tables.n + staged.n };
}

/** A CSV of about `bytes` in rows of 1 KB: few rows, so loading up to the limit takes well under a second. */
const csvOf = (bytes: number) => {
  const row = `1,${'x'.repeat(1020)}\r\n`;
  return Buffer.from(`lot,note\r\n${row.repeat(Math.ceil(bytes / row.length))}`);
};

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const CUT = { cutOff: true, timeoutMs: 2000 };
/** Drips the body slower than the idle timeout allows. */
const DRIP = { pauseMs: IDLE_MS * 2.5, timeoutMs: 10_000 };

describe('import-csv, multipart', () => {
  const boundary = 'faultboundary';
  const type = { 'content-type': `multipart/form-data; boundary=${boundary}` };
  const path = '/functions/v1/import-csv';
  const form = (name: string, file: Buffer, close = true) =>
    multipartBody(
      boundary,
      [
        { name: 'options', body: JSON.stringify({ auction_id: auctionId, name }) },
        { name: 'file', filename: 'a.csv', type: 'text/csv', body: file },
      ],
      close,
    );
  const lastEvent = (body: string) => events(body).at(-1);
  const failedEmpty = { status: 'failed', row_count: 0, leftovers: 0 };

  it('oversized and chunked: an SSE error VALIDATION_ERROR, the dataset failed and empty', async () => {
    const chunks = chunksOf(form('mp-big', csvOf(IMPORT_LIMIT + MB)), 256 * 1024);
    const answer = await send({ path, headers: type, chunked: true, chunks });
    expect(answer.status).toBe(200);
    expect(lastEvent(answer.body)).toMatchObject({ event: 'error', data: { code: 'VALIDATION_ERROR' } });
    expect(await settledDataset('mp-big')).toEqual(failedEmpty);
  });

  it('oversized with the file before the options (spooled first): 413 VALIDATION_ERROR, no dataset', async () => {
    const fileFirst = multipartBody(boundary, [
      { name: 'file', filename: 'a.csv', type: 'text/csv', body: csvOf(IMPORT_LIMIT + MB) },
      { name: 'options', body: JSON.stringify({ auction_id: auctionId, name: 'mp-file-first' }) },
    ]);
    const answer = await send({ path, headers: type, chunked: true, chunks: chunksOf(fileFirst, 256 * 1024) });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect((await db.sql`select id from public.datasets where name = 'mp-file-first'`).length).toBe(0);
  });

  it('just over the limit with an honest Content-Length: the same error, nothing kept', async () => {
    const body = form('mp-honest', csvOf(IMPORT_LIMIT + 8 * 1024));
    const answer = await send({ path, headers: { ...type, 'content-length': String(body.length) }, chunks: [body] });
    expect(lastEvent(answer.body)).toMatchObject({ event: 'error', data: { code: 'VALIDATION_ERROR' } });
    expect(await settledDataset('mp-honest')).toEqual(failedEmpty);
  });

  it('a Content-Length smaller than the body: the form ends early, an SSE error, nothing kept', async () => {
    const body = form('mp-short', csvOf(200 * 1024));
    const length = String(Math.floor(body.length / 2));
    // The bytes past Content-Length are no request at all: Node answers 400 and closes the connection.
    const answer = await send({ path, headers: { ...type, 'content-length': length }, chunks: [body] });
    expect(answer.status).not.toBe(0);
    expect(lastEvent(answer.body)?.event).not.toBe('complete');
    expect(await settledDataset('mp-short')).toEqual(failedEmpty);
  });

  it('cut off mid-way: the dataset is failed within 10 s of the disconnect, its rows gone', async () => {
    const body = form('mp-cut', csvOf(4 * MB));
    const headers = { ...type, 'content-length': String(body.length) };
    await send({ path, headers, chunks: [body.subarray(0, 2 * MB)], ...CUT });
    expect(await settledDataset('mp-cut')).toEqual(failedEmpty);
    expect(server.output()).toMatch(
      /"level":"info","msg":"request closed by client","method":"POST","path":"\/functions\/v1\/import-csv","bytes_read":\d+/,
    );
  });

  it('a slow drip: the idle timeout closes the request and the dataset is failed', async () => {
    const body = form('mp-drip', csvOf(256 * 1024));
    const headers = { ...type, 'content-length': String(body.length) };
    const answer = await send({ path, headers, chunks: chunksOf(body, 100 * 1024), ...DRIP });
    expect(lastEvent(answer.body)?.event).not.toBe('complete');
    expect(await settledDataset('mp-drip')).toEqual(failedEmpty);
    expect(server.output()).toContain('"msg":"request body idle; closed"');
  });

  it('malformed multipart is refused: missing closing boundary, bad part headers, no file part', async () => {
    const open = form('mp-open', csvOf(10 * 1024), false);
    const unclosed = await send({ path, headers: { ...type, 'content-length': String(open.length) }, chunks: [open] });
    expect(lastEvent(unclosed.body)).toMatchObject({ event: 'error', data: { code: 'INVALID_REQUEST' } });
    expect(await settledDataset('mp-open')).toEqual(failedEmpty);

    const garbled = Buffer.from(`--${boundary}\r\nno colon in this header\r\n\r\nx\r\n--${boundary}--\r\n`);
    const bad = await send({ path, headers: { ...type, 'content-length': String(garbled.length) }, chunks: [garbled] });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body)).toMatchObject({ code: 'INVALID_REQUEST' });

    const optionsOnly = multipartBody(boundary, [{ name: 'options', body: JSON.stringify({ auction_id: auctionId }) }]);
    const noFile = await send({ path, headers: type, chunked: true, chunks: [optionsOnly] });
    expect(noFile.status).toBe(400);
    expect(JSON.parse(noFile.body)).toMatchObject({ code: 'INVALID_REQUEST' });
  });

  it('binary junk and one 10 MB line: answered, never left importing', async () => {
    const junk = await send({ path, headers: type, chunked: true, chunks: [form('mp-junk', randomBytes(300 * 1024))] });
    expect(junk.status).toBe(200);
    expect(['complete', 'error']).toContain(lastEvent(junk.body)?.event);
    expect((await settledDataset('mp-junk')).leftovers).toBe(0);

    const line = Buffer.from(`lot,note\r\n1,${'y'.repeat(10 * MB)}\r\n`);
    const long = await send({ path, headers: type, chunked: true, chunks: chunksOf(form('mp-line', line), MB) });
    expect(lastEvent(long.body)).toMatchObject({ event: 'complete', data: { row_count: 1 } });
    expect(await settledDataset('mp-line')).toEqual({ status: 'ready', row_count: 1, leftovers: 0 });
  });
});

describe('import-csv, JSON', () => {
  const path = '/functions/v1/import-csv';
  const json = { 'content-type': 'application/json' };
  const bodyOf = (name: string, csv: Buffer) =>
    Buffer.from(JSON.stringify({ auction_id: auctionId, name, csv: csv.toString('utf8') }));
  const datasets = async (name: string) =>
    (await db.sql`select count(*)::int as n from public.datasets where name = ${name}`)[0].n as number;

  it('oversized, chunked or with an honest Content-Length: 413 VALIDATION_ERROR, no dataset', async () => {
    const body = bodyOf('js-big', csvOf(IMPORT_LIMIT + 128 * 1024));
    const chunked = await send({ path, headers: json, chunked: true, chunks: chunksOf(body, MB) });
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.body)).toMatchObject({ code: 'VALIDATION_ERROR' });
    const honest = await send({ path, headers: { ...json, 'content-length': String(body.length) }, chunks: [body] });
    expect(honest.status).toBe(413);
    expect(await datasets('js-big')).toBe(0);
  });

  it('short Content-Length, cut off, slow drip, junk: refused or closed, no dataset, no process lost', async () => {
    const body = bodyOf('js-faults', csvOf(64 * 1024));
    const short = await send({ path, headers: { ...json, 'content-length': '1000' }, chunks: [body] });
    expect(short.status).toBe(400);
    const length = { ...json, 'content-length': String(body.length) };
    await send({ path, headers: length, chunks: [body.subarray(0, 1000)], ...CUT });
    const drip = await send({ path, headers: length, chunks: chunksOf(body, 16 * 1024), ...DRIP });
    expect(drip.status).toBe(0);
    const junk = await send({ path, headers: json, chunked: true, chunks: [randomBytes(64 * 1024)] });
    expect(junk.status).toBe(400);
    await pause(200);
    expect(await datasets('js-faults')).toBe(0);
  });
});

describe('storage uploads', () => {
  const png = { 'content-type': 'image/png' };
  const pathOf = (name: string) => `/storage/v1/object/lot-images/${userId}/${name}.png`;
  const objects = async (name: string) =>
    (await db.sql`select count(*)::int as n from storage.objects where name = ${`${userId}/${name}.png`}`)[0]
      .n as number;
  afterEach(async () => {
    // A refused upload's spool file is removed as its request ends; give a closed one a moment.
    await until(async () => (await storageConsistency({ db, dataDir })).spool.length === 0, 'spool', 3000).catch(
      () => {},
    );
    const state = await storageConsistency({ db, dataDir });
    expect(state.stored).toEqual(state.rows);
    expect(state.spool, 'spool files left').toEqual([]);
  });

  it('oversized, chunked or with an honest Content-Length, and a 10 MB body: 413, no object', async () => {
    const big = imageBytes('image/png', STORAGE_LIMIT + 1024);
    const chunked = await send({ path: pathOf('big'), headers: png, chunked: true, chunks: chunksOf(big, 64 * 1024) });
    expect(chunked.status).toBe(413);
    const length = { ...png, 'content-length': String(big.length) };
    const honest = await send({ path: pathOf('big'), headers: length, chunks: [big] });
    expect(honest.status).toBe(413);
    const line = Buffer.concat([imageBytes('image/png', 64), Buffer.alloc(10 * MB, 'y')]);
    const huge = await send({ path: pathOf('big'), headers: png, chunked: true, chunks: chunksOf(line, MB) });
    // The server answers 413 at the first byte over and discards only a few MB more before it closes the
    // connection: a client still writing may see the reset before it reads the answer.
    expect([0, 413]).toContain(huge.status);
    expect(await objects('big')).toBe(0);
    // The server refused and dropped the rest itself: not a client that went away.
    expect(server.output()).not.toMatch(/"msg":"request closed by client","method":"POST","path":"[^"]*big\.png"/);
  });

  it('cut off, slow drip, junk bytes, malformed multipart: refused or closed, no object', async () => {
    const bytes = imageBytes('image/png', 256 * 1024);
    const length = { ...png, 'content-length': String(bytes.length) };
    await send({ path: pathOf('faulty'), headers: length, chunks: [bytes.subarray(0, 1000)], ...CUT });
    const drip = await send({ path: pathOf('faulty'), headers: length, chunks: chunksOf(bytes, 64 * 1024), ...DRIP });
    expect(drip.status).toBe(0);
    const junk = await send({ path: pathOf('faulty'), headers: png, chunked: true, chunks: [randomBytes(4096)] });
    expect(junk.status).toBe(415);
    const boundary = 'storageboundary';
    const open = multipartBody(boundary, [{ name: 'file', filename: 'a.png', type: 'image/png', body: bytes }], false);
    const form = { 'content-type': `multipart/form-data; boundary=${boundary}` };
    const unclosed = await send({ path: pathOf('faulty'), headers: form, chunked: true, chunks: [open] });
    expect(unclosed.status).toBe(400);
    const optionsOnly = multipartBody(boundary, [{ name: 'cacheControl', body: '60' }]);
    const noFile = await send({ path: pathOf('faulty'), headers: form, chunked: true, chunks: [optionsOnly] });
    expect(noFile.status).toBe(400);
    expect(await objects('faulty')).toBe(0);
  });
});

describe('storage signed uploads', () => {
  const signedPath = async (name: string) => {
    const answer = await fetch(
      `http://127.0.0.1:${port}/storage/v1/object/upload/sign/lot-images/${userId}/${name}.png`,
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: '{}',
      },
    );
    const { url } = (await answer.json()) as { url: string };
    return `/storage/v1${url}`;
  };
  const objects = async (name: string) =>
    (await db.sql`select count(*)::int as n from storage.objects where name = ${`${userId}/${name}.png`}`)[0]
      .n as number;

  it('oversized and chunked, cut off, slow drip, junk: refused or closed, no object, no spool file', async () => {
    const png = { 'content-type': 'image/png' };
    const big = imageBytes('image/png', STORAGE_LIMIT + 1024);
    const path = await signedPath('signed');
    const oversized = await send({
      method: 'PUT',
      path,
      headers: png,
      chunked: true,
      chunks: chunksOf(big, 64 * 1024),
    });
    expect(oversized.status).toBe(413);
    const bytes = imageBytes('image/png', 256 * 1024);
    const length = { ...png, 'content-length': String(bytes.length) };
    await send({ method: 'PUT', path, headers: length, chunks: [bytes.subarray(0, 1000)], ...CUT });
    const drip = await send({ method: 'PUT', path, headers: length, chunks: chunksOf(bytes, 64 * 1024), ...DRIP });
    expect(drip.status).toBe(0);
    const junk = await send({ method: 'PUT', path, headers: png, chunked: true, chunks: [randomBytes(4096)] });
    expect(junk.status).toBe(415);
    expect(await objects('signed')).toBe(0);
    await until(async () => (await storageConsistency({ db, dataDir })).spool.length === 0, 'no spool files', 3000);
  });
});

describe('storage upload with a Content-Length smaller than the body', () => {
  // The declared bytes arrive, Node refuses the bytes past them as a request of their own (400) and closes the
  // connection, often before the upload listens to its body: that upload must still end and remove its spool file.
  it('refuses the bytes past it and leaves no spool file', async () => {
    const bytes = imageBytes('image/png', 8192);
    const path = `/storage/v1/object/lot-images/${userId}/short.png`;
    for (let i = 0; i < 20; i++) {
      const answer = await send({
        path,
        headers: { 'content-type': 'image/png', 'content-length': '4096' },
        chunks: [bytes],
      });
      expect(answer.status).toBe(400);
    }
    // Each upload goes on after its connection closed (its declared bytes all arrived); wait for all 20 to end
    // (the gateway logs a request once its handler is done) before reading the state they leave.
    const ended = () =>
      server
        .output()
        .split('\n')
        .filter((l) => l.includes(`"msg":"request","id"`) && l.includes(`"path":"${path}"`));
    await until(() => ended().length === 20, 'all 20 uploads to end', 10_000);
    await until(async () => (await storageConsistency({ db, dataDir })).spool.length === 0, 'no spool files', 3000);
    const state = await storageConsistency({ db, dataDir });
    expect(state.stored).toEqual(state.rows);
  });
});

describe('JSON bodies of /rest/v1, /auth/v1 and functions', () => {
  it('a client that closes mid-body is logged at info as a closed request, never as an error', async () => {
    const json = { 'content-type': 'application/json', 'content-length': '5000' };
    const half = '{"name":"never finished","slug":"';
    for (const path of ['/rest/v1/auctions', '/auth/v1/signup', '/functions/v1/generate-sql'])
      await send({ path, headers: json, chunks: [half], ...CUT });
    await pause(300);
    for (const path of ['/rest/v1/auctions', '/auth/v1/signup', '/functions/v1/generate-sql'])
      expect(server.output()).toContain(`"msg":"request closed by client","method":"POST","path":"${path}"`);
    expect(server.output()).not.toMatch(/"level":"error"/);
  });

  it("a function's JSON body past FUNCTION_MAX_BODY_BYTES (1 MB): 413 VALIDATION_ERROR, chunked or declared", async () => {
    const body = Buffer.from(JSON.stringify({ question: 'q'.repeat(2 * MB) }));
    const json = { 'content-type': 'application/json' };
    const path = '/functions/v1/generate-sql';
    const chunked = await send({ path, headers: json, chunked: true, chunks: chunksOf(body, 256 * 1024) });
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.body)).toMatchObject({ code: 'VALIDATION_ERROR' });
    const declared = await send({ path, headers: { ...json, 'content-length': String(body.length) }, chunks: [body] });
    expect(declared.status).toBe(413);
  });

  it('a slow drip is closed after the idle timeout', async () => {
    const json = { 'content-type': 'application/json', 'content-length': '5000' };
    const answer = await send({ path: '/rest/v1/auctions', headers: json, chunks: ['{"na', 'me"'], ...DRIP });
    expect(answer.status).toBe(0);
    expect(server.output()).toContain('"msg":"request body idle; closed","method":"POST","path":"/rest/v1/auctions"');
  });
});
