// realtime.visible_changes keeps each policy check as a prepared statement on its connection (0008): the answers must
// be those of the policies in force at each call, whatever the connection prepared before: a policy changed between
// calls, statements dropped by a pooler, another role with the same policy text, and a policy that raises.
import { afterAll, beforeAll, expect, it } from 'vitest';
import postgres from 'postgres';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { authMigrations } from '@auction-ops/auth-core';
import { realtimeMigrations } from '../src/index.js';

let db: TestDatabase;
/** One connection, as the change router's calls share a pool's: what one call prepares, the next finds. */
let requests: postgres.Sql;

beforeAll(async () => {
  db = await createTestDatabase([authMigrations, realtimeMigrations]);
  await db.sql.unsafe(`
    create table public.notes (id int primary key, note text not null);
    alter table public.notes enable row level security;
    grant select on public.notes to authenticated;
    create policy notes_read on public.notes for select to authenticated, anon using (
      note <> 'gold' or current_setting('request.jwt.claims', true)::jsonb->>'tier' = 'gold');
  `);
  requests = postgres(db.requestUrl, { max: 1, onnotice: () => {} });
});

afterAll(async () => {
  await requests?.end();
  await db?.drop();
});

const changes = [
  { id: 1, note: 'plain' },
  { id: 2, note: 'gold' },
];
const plain = { role: 'authenticated', claims: JSON.stringify({ sub: 'u-plain', role: 'authenticated' }) };
const gold = { role: 'authenticated', claims: JSON.stringify({ sub: 'u-gold', role: 'authenticated', tier: 'gold' }) };
const anon = { role: 'anon', claims: JSON.stringify({ role: 'anon', tier: 'gold' }) };

/** For each identity, the notes of the changes it may see. */
async function visible(identities: object[]): Promise<string[][]> {
  const rows = await requests<{ identity: number; change: number }[]>`
    select identity, change from realtime.visible_changes('public.notes'::regclass,
      ${JSON.stringify(changes)}::text::jsonb, ${JSON.stringify(identities)}::text::jsonb)
    order by identity, change`;
  return identities.map((_, i) => rows.filter((r) => r.identity === i).map((r) => changes[r.change]!.note));
}

it('answers by each identity claims, call after call on one connection', async () => {
  for (let call = 0; call < 3; call++) expect(await visible([plain, gold])).toEqual([['plain'], ['plain', 'gold']]);
  const [{ n }] = await requests<{ n: number }[]>`
    select count(*)::int as n from pg_prepared_statements where name like 'realtime_check_%'`;
  expect(n).toBe(1);
});

it('follows a policy changed between calls', async () => {
  expect(await visible([plain, gold])).toEqual([['plain'], ['plain', 'gold']]);
  await db.sql`alter policy notes_read on public.notes using (note = 'gold')`;
  try {
    expect(await visible([plain, gold])).toEqual([['gold'], ['gold']]);
  } finally {
    await db.sql.unsafe(`alter policy notes_read on public.notes using (
      note <> 'gold' or current_setting('request.jwt.claims', true)::jsonb->>'tier' = 'gold')`);
  }
  expect(await visible([plain, gold])).toEqual([['plain'], ['plain', 'gold']]);
});

it('prepares again on a connection whose statements were dropped (a pooler resetting it)', async () => {
  expect(await visible([gold])).toEqual([['plain', 'gold']]);
  await requests`deallocate all`;
  expect(await visible([gold])).toEqual([['plain', 'gold']]);
});

it('does not lend one role the statement another prepared: anon, without the grant, sees nothing', async () => {
  // The policy applies to both roles and its text is the same, so both checks are one statement; the privilege on
  // the table is anon's own, checked when it runs.
  expect(await visible([gold, anon, gold])).toEqual([['plain', 'gold'], [], ['plain', 'gold']]);
});

it('hides only the changes a policy raised on, with the statements prepared', async () => {
  await db.sql.unsafe(`
    create function public.refuse_gold(note text) returns boolean language plpgsql as $$
    begin
      if note = 'gold' then raise exception 'no gold'; end if;
      return true;
    end $$;
    grant execute on function public.refuse_gold(text) to authenticated;
    alter policy notes_read on public.notes using (public.refuse_gold(note));
  `);
  expect(await visible([plain, gold])).toEqual([['plain'], ['plain']]);
});
