import { afterAll, beforeAll, expect, it } from 'vitest';
import postgres from 'postgres';
import { type TestDatabase, testCluster } from '@auction-ops/database/testing';
import { startTestServer, type TestServer } from './support/test-server.js';
import type { RunningServer } from '../src/index.js';

let t: TestServer;
let db: TestDatabase;
let server: RunningServer;

beforeAll(async () => {
  t = await startTestServer({
    JWT_SECRET: 'h'.repeat(40),
    WORKERS_ENABLED: 'false',
  });
  ({ db, server } = t);
});
afterAll(async () => {
  await t?.stop();
});

async function health(): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${server.url}/health`);
  return { status: res.status, body: await res.json() };
}

/** Closes the test database to new connections and ends the open ones: the database is gone for the server. */
async function withDatabaseGone(during: () => Promise<void>): Promise<void> {
  const admin = postgres((await testCluster()).adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`alter database "${db.name}" with allow_connections false`);
    await admin`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${db.name}
      and pid <> pg_backend_pid()`;
    await during();
  } finally {
    await admin.unsafe(`alter database "${db.name}" with allow_connections true`);
    await admin.end();
  }
}

/** Status, body and milliseconds of a request with the anon key. */
async function timed(path: string, init: RequestInit = {}) {
  const started = performance.now();
  const res = await fetch(`${server.url}${path}`, {
    ...init,
    headers: { apikey: t.anonKey, 'content-type': 'application/json', ...init.headers },
  });
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    body: await res.json(),
    ms: performance.now() - started,
  };
}

it('reports the database going away and coming back', async () => {
  expect(await health()).toMatchObject({ status: 200, body: { status: 'ok', database: 'up' } });
  // pg_terminate_backend only signals the backends: the check's connection may answer once more before it closes.
  await withDatabaseGone(async () => {
    await until(async () => (await health()).status === 503);
    expect(await health()).toMatchObject({ status: 503, body: { status: 'error', database: 'down' } });
  });
  expect(await health()).toMatchObject({ status: 200, body: { status: 'ok', database: 'up' } });
});

it('while the database is gone every family answers 503 in its own shape at once, and serves again after', async () => {
  await withDatabaseGone(async () => {
    await until(async () => (await health()).status === 503);
    const answers = await Promise.all([
      timed('/rest/v1/auctions?select=id'),
      timed('/auth/v1/token?grant_type=password', {
        method: 'POST',
        body: JSON.stringify({ email: 'a@example.test', password: 'x'.repeat(12) }),
      }),
      timed('/storage/v1/bucket'),
      timed('/functions/v1/check-pending', { method: 'POST', body: '{}' }),
    ]);
    expect(answers.map((a) => a.status)).toEqual([503, 503, 503, 503]);
    expect(answers.every((a) => a.retryAfter === '1' && a.ms < 1000)).toBe(true);
    const [rest, auth, storage, functions] = answers.map((a) => a.body);
    expect(rest).toMatchObject({ code: 'PGRST000', message: 'Database connection error. Retrying the connection.' });
    expect(auth).toMatchObject({ error_code: 'unexpected_failure', error: 'unexpected_failure' });
    expect(storage).toMatchObject({ statusCode: '503', error: 'DatabaseError' });
    expect(functions).toMatchObject({ code: 'INTERNAL_ERROR' });
  });
  // Back within the check interval (1 s; four checks a second while down), and the pools reconnect.
  const asService = { headers: { apikey: t.serviceRoleKey, authorization: `Bearer ${t.serviceRoleKey}` } };
  await until(async () => (await timed('/rest/v1/auctions?select=id', asService)).status === 200);
});

/** Waits up to 5 s for `check`. */
async function until(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}
