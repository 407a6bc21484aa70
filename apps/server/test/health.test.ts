// GET /health follows the database: 200 while it answers, 503 while it does not, 200 again once it is back.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import postgres from 'postgres';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { loadConfig, startServer, type RunningServer } from '../src/index.js';

let db: TestDatabase;
let dataDir: string;
let server: RunningServer;

beforeAll(async () => {
  db = await createTestDatabase([]);
  dataDir = mkdtempSync(join(tmpdir(), 'auction-ops-health-'));
  server = await startServer(
    loadConfig({
      PORT: '0',
      DATABASE_URL: db.ownerUrl,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      JWT_SECRET: 'h'.repeat(40),
      WORKERS_ENABLED: 'false',
    }),
  );
});
afterAll(async () => {
  await server?.close();
  await db?.drop();
  rmSync(dataDir, { recursive: true, force: true });
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
    await admin`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${db.name} and pid <> pg_backend_pid()`;
    expect(await health()).toMatchObject({ status: 503, body: { status: 'error', database: 'down' } });
    await admin.unsafe(`alter database "${db.name}" with allow_connections true`);
    expect(await health()).toMatchObject({ status: 200, body: { status: 'ok', database: 'up' } });
  } finally {
    await admin.unsafe(`alter database "${db.name}" with allow_connections true`);
    await admin.end();
  }
});
