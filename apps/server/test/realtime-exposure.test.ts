// Realtime exposure as the areas declare it (realtime.expose in their migrations), checked against what it
// promises: every table in the publication is declared, and a table declared `classed` reads rows by nothing but
// what an identity class is made of, or realtime would send one subscriber's rows to another of its class.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { migrationSets } from '../src/migration-sets.js';

/**
 * What the domain's realtime.identity_class is made of (role, the `aal` and `is_anonymous` claims, super-admin
 * status, memberships, location assignments), as the policy helpers that read it: a classed table's SELECT
 * policies may call these and nothing else that knows the user (auth.uid(), auth.jwt(), current_setting, other
 * helpers).
 */
const CLASS_INPUTS = new Set([
  'is_anonymous_caller',
  'is_super_admin',
  'member_auction_ids',
  'admin_auction_ids',
  'current_user_auction_ids',
  'current_user_assigned_location_ids',
  'current_user_hidden_channel_ids',
]);
/** Functions of the row alone, the same for every caller. */
const CALLER_FREE = new Set(['now', 'coalesce', 'lower', 'upper']);

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase(migrationSets);
});
afterAll(async () => {
  await db?.drop();
});

/** The calls in a table's SELECT policies for signed-in users that may tell one user of a class from another. */
async function userDependentCalls(table: string): Promise<string[]> {
  const policies = await db.sql<{ qual: string | null }[]>`
    select qual from pg_policies
     where schemaname || '.' || tablename = ${table} and cmd in ('SELECT', 'ALL')
       and (roles && array['authenticated', 'public']::name[])`;
  const calls = policies.flatMap((p) => [...(p.qual ?? '').matchAll(/([a-z_]+\.)?([a-z_]+)\(/g)]);
  return calls
    .map(([, schema, name]) => `${schema ?? ''}${name}`)
    .filter((call) => {
      const name = call.replace(/^[a-z_]+\./, '');
      return !(CLASS_INPUTS.has(name) && !call.startsWith('auth.')) && !CALLER_FREE.has(call);
    });
}

describe('realtime exposure', () => {
  it('declares every table of the publication, and nothing else', async () => {
    const published = await db.sql<{ t: string }[]>`
      select schemaname || '.' || tablename as t from pg_publication_tables
       where pubname = 'auction_ops_realtime' order by 1`;
    const declared = await db.sql<{ t: string }[]>`
      select rel::text as t from realtime.exposed_tables order by 1`;
    expect(declared.map((r) => r.t.replace(/^(?!public\.)/, 'public.')).sort()).toEqual(published.map((r) => r.t));
  });

  it('classed tables read by class inputs only', async () => {
    const classed = await db.sql<{ t: string }[]>`
      select c.relnamespace::regnamespace || '.' || c.relname as t
        from realtime.exposed_tables e join pg_class c on c.oid = e.rel where e.classed order by 1`;
    expect(classed.length).toBeGreaterThan(0);
    const violations: Record<string, string[]> = {};
    for (const { t } of classed) {
      const calls = await userDependentCalls(t);
      if (calls.length) violations[t] = calls;
    }
    expect(violations).toEqual({});
  });

  it('tells apart identities the policies tell apart by their claims: aal and is_anonymous', async () => {
    const [user] = await db.sql<{ id: string }[]>`
      insert into auth.users (email) values ('class-claims@x.test') returning id`;
    const classOf = async (claims: Record<string, unknown>) => {
      const [row] = await db.sql<{ c: string }[]>`
        select realtime.identity_class('public.auction_invitations'::regclass, 'authenticated',
          ${JSON.stringify({ sub: user!.id, role: 'authenticated', ...claims })}::text::jsonb) as c`;
      return row!.c;
    };
    const plain = await classOf({ aal: 'aal1' });
    expect(await classOf({})).toBe(plain);
    expect(await classOf({ aal: 'aal2' })).not.toBe(plain);
    expect(await classOf({ aal: 'aal1', is_anonymous: true })).not.toBe(plain);
  });

  it('the rule finds what a wrong declaration would let through', async () => {
    // Read state and the users' own profiles are per user: declaring them classed would be a mistake.
    expect(await userDependentCalls('public.channel_read_state')).toContain('auth.uid');
    expect(await userDependentCalls('public.users')).toEqual(
      expect.arrayContaining(['auth.uid', 'current_user_co_member_ids']),
    );
  });
});
