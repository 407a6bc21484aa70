// Realtime's change capture leaves out transactions committed under the bulk replication origin an import or a
// restore runs under (auction-import.ts), and streams the ones after them as usual.
import { afterAll, beforeAll, expect, it } from 'vitest';
import postgres from 'postgres';
import { type Change, createChangeCapture, BULK_ORIGIN_PREFIX as REALTIME_PREFIX } from '@auction-ops/realtime';
import type { TestDatabase } from '@auction-ops/database/testing';
import { BULK_ORIGIN_PREFIX } from '../src/index.js';
import { closeInstance, createInstance, type Instance } from './support.js';

let instance: Instance;
let db: TestDatabase;
let capture: ReturnType<typeof createChangeCapture>;
const seen: Change[] = [];

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

beforeAll(async () => {
  instance = await createInstance();
  db = instance.db;
  capture = createChangeCapture({
    url: db.ownerUrl,
    sql: db.sql,
    onTransaction: (changes) => seen.push(...changes),
    onReset: () => {},
    log: () => {},
  });
  await capture.start();
});

afterAll(async () => {
  await capture?.stop();
  await closeInstance(instance);
});

it('both packages name the same origin prefix', () => {
  expect(BULK_ORIGIN_PREFIX).toBe(REALTIME_PREFIX);
});

it('does not stream a transaction under the bulk origin; streams the next ordinary one', async () => {
  const [auction] = await db.sql`insert into public.auctions (name, slug) values ('Quiet', 'quiet') returning id`;
  const bulk = postgres(db.ownerUrl, { max: 1, onnotice: () => {} });
  try {
    const origin = `${BULK_ORIGIN_PREFIX}_test`;
    await bulk`select pg_replication_origin_create(${origin})`;
    await bulk`select pg_replication_origin_session_setup(${origin})`;
    await bulk`insert into public.locations (auction_id, name) values (${auction!.id}, 'bulk row')`;
    await bulk`select pg_replication_origin_session_reset()`;
    await bulk`select pg_replication_origin_drop(${origin})`;
  } finally {
    await bulk.end();
  }
  await db.sql`insert into public.locations (auction_id, name) values (${auction!.id}, 'ordinary row')`;
  const names = () => seen.filter((c) => c.table.table === 'locations').map((c) => c.record.name);
  // Changes arrive in commit order: once the later ordinary row is here, the bulk one would have been too.
  await until(() => names().includes('ordinary row'), 'the ordinary row');
  expect(names()).toEqual(['ordinary row']);
});
