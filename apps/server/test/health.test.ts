import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import postgres from 'postgres';
import type { TestDatabase } from '@auction-ops/database/testing';
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

it('reports the database going away and coming back', async () => {
  expect(await health()).toMatchObject({ status: 200, body: { status: 'ok', database: 'up' } });
  const admin = postgres(inject('pgAdminUrl'), { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`alter database "${db.name}" with allow_connections false`);
    await admin`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${db.name}
      and pid <> pg_backend_pid()`;
    expect(await health()).toMatchObject({ status: 503, body: { status: 'error', database: 'down' } });
    await admin.unsafe(`alter database "${db.name}" with allow_connections true`);
    expect(await health()).toMatchObject({ status: 200, body: { status: 'ok', database: 'up' } });
  } finally {
    await admin.unsafe(`alter database "${db.name}" with allow_connections true`);
    await admin.end();
  }
});
