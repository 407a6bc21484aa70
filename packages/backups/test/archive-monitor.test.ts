// A failing archive_command: PostgreSQL keeps accepting writes and keeps the segments in pg_wal, and
// archiverState/isFailing (what the server's warning reads) report it with the segments waiting.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEmbeddedPostgres, type EmbeddedCluster } from '@auction-ops/database';
import { archiveSettings, archiverState, isFailing, resolveTarget } from '../src/index.js';

let root: string;
let cluster: EmbeddedCluster;
let sql: postgres.Sql;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'auction-ops-archive-fail-'));
  writeFileSync(join(root, 'not-a-directory'), '');
  // A target below a regular file: every archive attempt fails.
  const target = resolveTarget(join(root, 'not-a-directory', 'target'));
  cluster = await startEmbeddedPostgres({ dir: join(root, 'pg'), settings: archiveSettings(target, 1) });
  sql = postgres(cluster.url, { max: 1, onnotice: () => {} });
}, 120_000);

afterAll(async () => {
  await sql?.end({ timeout: 1 });
  await cluster?.stop();
  rmSync(root, { recursive: true, force: true });
});

it('keeps writes going and reports the failing archive with the segments waiting', async () => {
  expect(isFailing(await archiverState(sql))).toBe(false);
  await sql`create table t (n int)`;
  for (let i = 0; i < 3; i++) {
    await sql`insert into t values (${i})`;
    await sql`select pg_switch_wal()`;
  }
  const deadline = Date.now() + 30_000;
  let state = await archiverState(sql);
  while (!isFailing(state) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    state = await archiverState(sql);
  }
  expect(isFailing(state)).toBe(true);
  expect(state.failedCount).toBeGreaterThan(0);
  expect(state.lastFailedWal).toMatch(/^[0-9A-F]{24}$/);
  expect(state.pendingSegments).toBeGreaterThanOrEqual(3);
  expect((await sql`select count(*)::int as n from t`)[0].n).toBe(3);
}, 60_000);
