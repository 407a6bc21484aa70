// The functions of schema `public` are the ones clients may call (the data interface exposes them as RPCs and the
// generated `Database` type lists them): a trigger function, or a helper no client role may execute, belongs in
// the private `domain` schema. This holds every migration set, and a new area, to that.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { migrationSets } from '@auction-ops/server-config/migration-sets';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase(migrationSets);
}, 120_000);
afterAll(async () => {
  await db?.drop();
});

const publicFunctions = (where: string) =>
  db.sql.unsafe<{ name: string }[]>(`
  select p.proname as name from pg_proc p join pg_namespace n on n.oid = p.pronamespace
   where n.nspname = 'public' and (${where}) order by 1`);

it('public holds no trigger function', async () => {
  expect(await publicFunctions(`p.prorettype = 'trigger'::regtype`)).toEqual([]);
});

it('every function in public is executable by a client role (anon, authenticated or service_role)', async () => {
  expect(
    await publicFunctions(`not (has_function_privilege('anon', p.oid, 'execute')
      or has_function_privilege('authenticated', p.oid, 'execute')
      or has_function_privilege('service_role', p.oid, 'execute'))`),
  ).toEqual([]);
});

it('the moved trigger functions still fire: a change writes its event through domain.emit_event', async () => {
  const [a] = await db.sql`insert into public.auctions (name, slug) values ('Moved', 'moved-functions') returning id`;
  const [l] = await db.sql`insert into public.locations (auction_id, name) values (${a.id}, 'Yard') returning id`;
  await db.sql`insert into public.channels (auction_id, name, location_id) values (${a.id}, 'yard', ${l.id})`;
  const events = await db.sql`select event_type from public.event_outbox where auction_id = ${a.id}`;
  expect(events.map((e) => e.event_type)).toEqual(['channel.created']);
});
