// Two instances started at the same moment on one fresh database (a rolling deploy's first start, or two
// replicas scheduled together): the migration lock lets one apply each migration and the other wait, so every
// migration is in the ledger once, recorded with this release, and both serve.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFreePort, loadMigrations } from '@auction-ops/database';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { migrationSets } from '@auction-ops/server-config/migration-sets';
import { version } from '../src/version.js';
import { type ReleaseProcess, startRelease } from './support/release-process.js';

const START = fileURLToPath(new URL('../bin/start.mjs', import.meta.url));

let db: TestDatabase;
let root: string;
const servers: ReleaseProcess[] = [];
beforeAll(async () => {
  // No migration applied: only the (empty) ledger the test databases start with.
  db = await createTestDatabase([]);
  root = mkdtempSync(join(tmpdir(), 'auction-ops-concurrent-start-'));
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await db?.drop();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('two instances starting at once on a fresh database', () => {
  it('apply each migration once and both serve', async () => {
    expect((await db.sql`select count(*)::int as n from auction_ops.migrations`)[0].n).toBe(0);
    const env = async (name: string) => ({
      DATABASE_URL: db.ownerUrl,
      DATA_DIR: join(root, name),
      JWT_SECRET: 'concurrent-start-test-secret-'.padEnd(40, 'x'),
      PORT: String(await findFreePort()),
    });
    const [a, b] = [await env('a'), await env('b')];
    const started = await Promise.allSettled([startRelease(START, a), startRelease(START, b)]);
    for (const s of started) if (s.status === 'fulfilled') servers.push(s.value);
    expect(started.map((s) => (s.status === 'rejected' ? String(s.reason) : 'serving'))).toEqual([
      'serving',
      'serving',
    ]);
    for (const server of servers)
      expect(await (await fetch(`${server.url}/health`)).json()).toMatchObject({ status: 'ok', version });

    const ledger = await db.sql<{ key: string; release: string }[]>`
      select package || '/' || name as key, release from auction_ops.migrations`;
    const expected = loadMigrations(migrationSets).map((m) => ({ key: `${m.set}/${m.name}`, release: version }));
    const byKey = (x: { key: string }, y: { key: string }) => x.key.localeCompare(y.key);
    expect([...ledger].sort(byKey)).toEqual(expected.sort(byKey));
    const releases = await db.sql`select version from auction_ops.releases`;
    expect(releases.map((r) => r.version)).toEqual([version]);
  });
});
