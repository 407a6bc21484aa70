import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { signApiKey } from '@auction-ops/auth-core';
import { findFreePort } from '@auction-ops/database';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { type ServerProcess, processEnv, serverProcess } from './support/test-server.js';
import { CLIENT_OPTIONS, PASSWORD, until } from './functions-notify.fixture.js';
import { generateCsv, readSse } from './functions-reporting.fixture.js';

let db: TestDatabase;
let dataDir: string;
let child: ServerProcess['child'] | undefined;

beforeAll(async () => {
  db = await createTestDatabase([]);
  dataDir = mkdtempSync(join(tmpdir(), 'auction-ops-import-crash-'));
});
afterAll(async () => {
  child?.kill('SIGKILL');
  await db.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

it('a server killed mid-import leaves no visible rows and a dataset that can be imported again', async () => {
  const port = await findFreePort();
  const url = `http://127.0.0.1:${port}`;
  const state = { dataDir, databaseUrl: db.ownerUrl, jwtSecret: 'k'.repeat(40) };
  const env = {
    RATE_LIMITS_ENABLED: 'false',
    WEBHOOK_DISPATCHER_ENABLED: 'false',
    PENDING_CHECK_ENABLED: 'false',
    FUNCTION_RATE_LIMITS: 'import-csv=100/hour',
  };
  const proc = serverProcess(processEnv(state, env), port);
  const start = async () => {
    child = proc.start().child;
    await until(proc.healthy, 'the server', 60_000);
  };
  await start();
  // The server derives its anon key from JWT_SECRET, as signApiKey does.
  const anonKey = await signApiKey('k'.repeat(40), 'anon');
  const client = createClient(url, anonKey, CLIENT_OPTIONS);
  const { data: session, error } = await client.auth.signUp({ email: 'crash@import.test', password: PASSWORD });
  if (error) throw error;
  const token = session.session!.access_token;
  const { data: auction } = await client
    .from('auctions')
    .insert({ name: 'Crash', slug: 'crash-import' })
    .select('id')
    .single();

  // A multipart upload that sends half the file and never finishes: the server is loading rows when it dies.
  const bytes = new TextEncoder().encode(generateCsv(50_000).text);
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes.subarray(0, Math.floor(bytes.length / 2)));
    },
  });
  const boundary = 'crashboundary';
  const prefix =
    `--${boundary}\r\ncontent-disposition: form-data; name="options"\r\n\r\n` +
    `${JSON.stringify({ auction_id: auction!.id, name: 'half' })}\r\n` +
    `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="a.csv"\r\ncontent-type: text/csv\r\n\r\n`;
  const upload = fetch(`${url}/functions/v1/import-csv`, {
    method: 'POST',
    headers: {
      apikey: anonKey,
      authorization: `Bearer ${token}`,
      'content-type': `multipart/form-data; boundary=${boundary}`,
    },
    body: concatStreams(prefix, stream),
    duplex: 'half',
  } as RequestInit).catch(() => undefined);
  await until(async () => {
    const [row] = await db.sql`select count(*)::int as n from reporting_data.imports`;
    return row.n === 1;
  }, 'the import to start');
  await until(async () => {
    const [row] =
      await db.sql`select tablename from pg_tables where schemaname = 'reporting_data' and tablename like 'ds_%'`;
    return row !== undefined;
  }, 'the staging table');
  child!.kill('SIGKILL');
  await new Promise((r) => child!.once('exit', r));
  await upload;

  // Dead server, nothing swept yet: the dataset says importing and no rows are reachable through it.
  const [during] = await db.sql`select status, row_count, table_name from public.datasets where name = 'half'`;
  expect(during).toEqual({ status: 'importing', row_count: 0, table_name: null });

  await start();
  await until(async () => {
    const [row] = await db.sql`select status from public.datasets where name = 'half'`;
    return row.status === 'failed';
  }, 'the sweep to roll the import back');
  const [tables] = await db.sql`select count(*)::int as n from pg_tables where schemaname = 'reporting_data'
      and tablename like 'ds_%'`;
  expect(tables.n).toBe(0);

  const [dataset] = await db.sql`select id from public.datasets where name = 'half'`;
  const again = await fetch(`${url}/functions/v1/import-csv`, {
    method: 'POST',
    headers: { apikey: anonKey, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      auction_id: auction!.id,
      dataset_id: dataset.id,
      mode: 'replace',
      csv: generateCsv(100).text,
    }),
  });
  const events = await readSse(again.body);
  expect(events.at(-1)).toMatchObject({ event: 'complete', data: { row_count: 100 } });
  child!.kill('SIGTERM');
  await new Promise((r) => child!.once('exit', r));
  child = undefined;
});

function concatStreams(prefix: string, rest: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const reader = rest.getReader();
  let sentPrefix = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!sentPrefix) {
        sentPrefix = true;
        controller.enqueue(new TextEncoder().encode(prefix));
        return;
      }
      const next = await reader.read();
      if (next.done) return; // never closes: the upload is cut off by the kill
      controller.enqueue(next.value);
    },
  });
}
