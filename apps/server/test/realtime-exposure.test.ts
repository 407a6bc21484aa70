// Realtime exposure as the areas declare it (realtime.expose in their migrations), checked against what it
// promises: every table in the publication is declared, and a table declared `classed` reads rows by nothing but
// what an identity class is made of, or realtime would send one subscriber's rows to another of its class; a table
// scoped by tenant shows its rows to members of the row's auction only, or realtime would skip checks it needs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { migrationSets } from '@auction-ops/server-config/migration-sets';

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

  it('tenant-scoped tables ask for the row’s auction among the user’s in every SELECT policy', async () => {
    const scoped = await db.sql<{ t: string; column: string }[]>`
      select c.relnamespace::regnamespace || '.' || c.relname as t, e.tenant_column as column
        from realtime.exposed_tables e join pg_class c on c.oid = e.rel where e.tenant_column is not null`;
    expect(scoped.map((s) => s.t)).toContain('public.messages');
    // Each permissive SELECT policy for signed-in users, with every top-level `or` branch, must require the
    // tenant column among the auctions one of these helpers returns (the user's memberships; all for super admins).
    const membership =
      /\(?auction_id = ANY \(ARRAY\( SELECT (member_auction_ids|admin_auction_ids|current_user_auction_ids)\(\)/;
    const violations: string[] = [];
    for (const { t, column } of scoped) {
      expect(column).toBe('auction_id');
      const policies = await db.sql<{ qual: string | null }[]>`
        select qual from pg_policies
         where schemaname || '.' || tablename = ${t} and cmd in ('SELECT', 'ALL') and permissive = 'PERMISSIVE'
           and (roles && array['authenticated', 'public']::name[])`;
      for (const { qual } of policies) {
        const branches = topLevelOr(qual ?? 'true');
        if (!branches.every((b) => membership.test(b))) violations.push(`${t}: ${qual}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('a member’s tenants are the member’s auctions; a super admin’s are not limited', async () => {
    const [user] = await db.sql<
      { id: string }[]
    >`insert into auth.users (email) values ('tenants@x.test') returning id`;
    const [admin] = await db.sql<
      { id: string }[]
    >`insert into auth.users (email) values ('tenants-sa@x.test') returning id`;
    const [auction] = await db.sql<{ id: string }[]>`
      insert into public.auctions (name, slug) values ('Tenants', 'tenants-test') returning id`;
    await db.sql`insert into public.auction_members (auction_id, user_id, role) values (${auction!.id}, ${user!.id}, 'team_member')`;
    await db.sql`insert into public.super_admins (user_id) values (${admin!.id})`;
    const tenantsOf = async (sub: string) => {
      const [row] = await db.sql<{ tenants: string[] | null }[]>`
        select tenants from realtime.identity_scopes(array['public.messages'::regclass],
          ${JSON.stringify([{ role: 'authenticated', claims: JSON.stringify({ sub, role: 'authenticated' }) }])}::text::jsonb)`;
      return row!.tenants;
    };
    expect(await tenantsOf(user!.id)).toEqual([auction!.id]);
    expect(await tenantsOf(admin!.id)).toBeNull();
  });

  it('the rule finds what a wrong declaration would let through', async () => {
    // Read state and the users' own profiles are per user: declaring them classed would be a mistake.
    expect(await userDependentCalls('public.channel_read_state')).toContain('auth.uid');
    expect(await userDependentCalls('public.users')).toEqual(
      expect.arrayContaining(['auth.uid', 'current_user_co_member_ids']),
    );
  });
});

/** The operands of a policy's top-level `OR`s (parentheses and quotes respected), outer parentheses removed. */
function topLevelOr(qual: string): string[] {
  let text = qual.trim();
  while (text.startsWith('(') && closingOf(text, 0) === text.length - 1) text = text.slice(1, -1).trim();
  const parts: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "'") i = text.indexOf("'", i + 1);
    else if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (depth === 0 && text.startsWith(' OR ', i)) {
      parts.push(text.slice(from, i));
      from = i + 4;
    }
  }
  parts.push(text.slice(from));
  return parts.map((p) => p.trim());
}

function closingOf(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')' && --depth === 0) return i;
  }
  return -1;
}
