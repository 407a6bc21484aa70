// Issue 57: writes answered 409 23505 under `pnpm bench day --k 5`. The fan-out drew delivery ids in a subquery that
// names no endpoint column; once webhook_endpoints has statistics that make a sequential scan cheapest, the custom
// plans a backend makes for its first five fan-outs ran that subquery once and gave every endpoint the same id, so the
// event's second delivery broke webhook_deliveries_pkey and the write that emitted the event was rolled back. This
// file makes those conditions (two endpoints for each of many auctions, ANALYZE, a backend that never fanned out).
import { afterAll, beforeAll, expect, it } from 'vitest';
import postgres from 'postgres';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { authMigrations } from '@auction-ops/auth-core';
import { domainMigrations } from '@auction-ops/domain';
import { webhookMigrations } from '../src/index.js';
import { emit } from './helpers.js';

const AUCTIONS = 30;
/** More than the five custom plans a backend makes before it may settle on a generic one. */
const EVENTS = 12;

let db: TestDatabase;
const auctions: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase([authMigrations, domainMigrations, webhookMigrations]);
  const rows = await db.sql<{ id: string }[]>`
    insert into public.auctions (name, slug)
    select 'Fan-out ' || g, 'fan-out-' || g from generate_series(1, ${AUCTIONS}::int) g returning id::text`;
  auctions.push(...rows.map((r) => r.id));
  await db.sql`
    insert into public.webhook_endpoints (auction_id, url, events, secret, is_active)
    select a, 'https://hooks.example.com/' || a || '/' || j, '{message.created}', 'test-secret-0123456789', true
      from unnest(${auctions}::uuid[]) a, generate_series(1, 2) j`;
  // What autovacuum does on its own once the day bench has registered its endpoints (K = 5: 200 of them).
  await db.sql`analyze public.webhook_endpoints`;
});
afterAll(async () => db?.drop());

it('gives each delivery of an event its own id, from the first fan-out of a fresh backend', async () => {
  // A connection of its own: its backend has planned no fan-out yet, so every event below is planned afresh.
  const fresh = postgres(db.ownerUrl, { max: 1, onnotice: () => {} });
  try {
    const failures: string[] = [];
    const events: string[] = [];
    for (let n = 0; n < EVENTS; n++) {
      try {
        events.push(await emit(fresh, auctions[n % AUCTIONS]!, 'message.created', { id: `m${n}` }));
      } catch (error) {
        failures.push(`event ${n}: ${(error as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
    const rows = await db.sql<{ event_id: string; id: string; webhook_id: string }[]>`
      select event_id::text, id::text, payload->>'webhook_id' as webhook_id
        from public.webhook_deliveries where event_id = any(${events}::uuid[])`;
    expect(rows).toHaveLength(EVENTS * 2);
    expect(new Set(rows.map((r) => r.id)).size).toBe(EVENTS * 2);
    // The id a receiver sees in the body is the delivery's own.
    expect(rows.filter((r) => r.webhook_id !== r.id)).toEqual([]);
  } finally {
    await fresh.end();
  }
});
