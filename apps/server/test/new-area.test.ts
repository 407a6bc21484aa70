// What a new area's migrations do by themselves: this test adds "gate check-ins" as two migration sets of its own,
// written to a temporary directory (as new files in packages/domain/migrations and migrations-realtime would be): a
// table under row-level security, an event in the catalogue with its trigger, realtime exposure. The server then
// serves it through every interface without a restart: REST, the event outbox and webhooks, realtime (the table's
// changes; outbox events never reach realtime), and the checks that hold every area to its declarations
// (catalogue, exposure rule). A real area also edits existing files (tests, lock, changelog, docs, seed, types, the
// auction-data map): packages/domain/README.md, "Adding a domain area", lists each with the check that fails
// without it.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RealtimePostgresInsertPayload } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '@auction-ops/database';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { migrationSets } from '@auction-ops/server-config/migration-sets';
import { realtimeClient, subscribed, until } from './realtime.fixture.js';
import { startTestServer, TEST_PASSWORD, type TestServer } from './support/test-server.js';

const AREA = `
create table public.gate_checkins (
  id uuid primary key default gen_random_uuid(),
  auction_id uuid not null references public.auctions (id) on delete cascade,
  plate text not null,
  checked_in_by uuid references public.users (id) on delete set null default auth.uid(),
  checked_in_at timestamptz not null default now()
);
alter table public.gate_checkins enable row level security;
grant select, insert, update, delete on public.gate_checkins to authenticated;
grant all on public.gate_checkins to service_role;
select domain.create_tenant_policies('public.gate_checkins', 'member', 'checked_in_by');
select domain.refuse_anonymous('public.gate_checkins');

insert into public.event_types (name, area, emitted_when, fields, sample, since_version) values
  ('checkin.created', 'gates', 'a car checked in at the gate',
   '{"id": "uuid", "plate": "text", "checked_in_by": "user?", "checked_in_at": "timestamp"}',
   '{"id": "00000000-0000-4000-8000-000000000001", "plate": "KA-1234",
     "checked_in_by": {"id": "00000000-0000-4000-8000-000000000002", "name": "Sample Member"},
     "checked_in_at": "2026-03-01T14:05:09.123+00:00"}', '0.5.0');

create function domain.gate_checkin_events() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  perform domain.emit_event(new.auction_id, 'checkin.created', jsonb_build_object('id', new.id, 'plate', new.plate,
    'checked_in_by', public.user_ref(new.checked_in_by), 'checked_in_at', new.checked_in_at));
  return new;
end $$;
create trigger gate_checkin_events after insert on public.gate_checkins
  for each row execute function domain.gate_checkin_events();
`;

const AREA_REALTIME = `select realtime.expose('public.gate_checkins', classed => true);`;

let dir: string;
let db: TestDatabase;
let t: TestServer;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'auction-ops-new-area-'));
  for (const [set, sql] of [
    ['gates', AREA],
    ['gates-realtime', AREA_REALTIME],
  ]) {
    mkdirSync(join(dir, set));
    writeFileSync(join(dir, set, '0001-gate-checkins.sql'), sql);
  }
  const gates = { name: 'gates', dir: join(dir, 'gates'), dependsOn: ['domain'] };
  const gatesRealtime = {
    name: 'gates-realtime',
    dir: join(dir, 'gates-realtime'),
    dependsOn: ['gates', 'domain-realtime'],
  };
  db = await createTestDatabase(migrationSets);
  t = await startTestServer({ WEBHOOK_DISPATCHER_ENABLED: 'false' }, { db });
  // The area arrives as an expand migration does on a running server (docs/migrations.md): applied beside it, then
  // picked up without a restart. (Applied before the start, these sets, unknown to the release, would be taken for
  // a newer release's and refused.)
  await migrate(db.ownerUrl, [...migrationSets, gates, gatesRealtime]);
  await until(async () => {
    const res = await fetch(`${t.url}/rest/v1/gate_checkins?select=id&limit=0`, { headers: { apikey: t.anonKey } });
    return res.status !== 404;
  }, 'the REST schema cache to know gate_checkins');
});
afterAll(async () => {
  await t?.stop();
  await db?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a new area (gate check-ins) from its migrations alone', () => {
  it('is served through REST, the outbox, webhooks and realtime', async () => {
    const client = realtimeClient(t);
    const email = `gatekeeper-${Date.now()}@new-area.test`;
    const signedUp = await client.auth.signUp({
      email,
      password: TEST_PASSWORD,
      options: { data: { full_name: 'Gate Keeper' } },
    });
    expect(signedUp.error).toBeNull();
    const auction = await client
      .from('auctions')
      .insert({ name: 'Gate Auction', slug: `gates-${Date.now()}` })
      .select()
      .single();
    expect(auction.error).toBeNull();
    const auctionId = auction.data!.id as string;

    const endpoint = await client
      .from('webhook_endpoints')
      .insert({
        auction_id: auctionId,
        url: 'https://hooks.example.com/gates',
        events: ['checkin.created'],
        secret: 'gate-secret-0123456789',
      })
      .select('id')
      .single();
    expect(endpoint.error).toBeNull();

    const received: RealtimePostgresInsertPayload<{ plate: string }>[] = [];
    const channel = client
      .channel('gates')
      .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'gate_checkins' }, (p) =>
        received.push(p as RealtimePostgresInsertPayload<{ plate: string }>),
      );
    await subscribed(channel);

    const checkin = await client
      .from('gate_checkins')
      .insert({ auction_id: auctionId, plate: 'KA-1234' })
      .select()
      .single();
    expect(checkin.error).toBeNull();

    await until(() => received.length === 1, 'the insert over realtime');
    expect(received[0].new.plate).toBe('KA-1234');
    const [event] = await t.db.sql`select event_type, data from public.event_outbox where auction_id = ${auctionId}`;
    expect(event.event_type).toBe('checkin.created');
    const [{ sample }] = await t.db.sql`select sample from public.event_types where name = 'checkin.created'`;
    expect(Object.keys(event.data).sort()).toEqual(Object.keys(sample).sort());
    expect(event.data.checked_in_by).toEqual({ id: signedUp.data.user!.id, name: 'Gate Keeper' });
    const deliveries = await t.db
      .sql`select event_type from public.webhook_deliveries where endpoint_id = ${endpoint.data!.id}`;
    expect(deliveries.map((d) => d.event_type)).toEqual(['checkin.created']);
    await client.removeAllChannels();
  });

  it('is held to the declarations every area is: catalogue, emit calls and the exposure rule', async () => {
    const [catalogued] = await t.db
      .sql`select count(*)::int as n from public.event_types where name = 'checkin.created'`;
    expect(catalogued.n).toBe(1);
    const [exposed] = await t.db
      .sql`select classed from realtime.exposed_tables where rel = 'public.gate_checkins'::regclass`;
    expect(exposed.classed).toBe(true);
    // Every table anon may not read, the new one and those of every set, refuses anonymous sign-ins.
    expect(await t.db.sql`select domain.tables_open_to_anonymous_users()::text as t`).toEqual([]);
    const published = await t.db.sql`select 1 from pg_publication_tables
      where pubname = 'auction_ops_realtime' and tablename = 'gate_checkins'`;
    expect(published).toHaveLength(1);
  });
});
