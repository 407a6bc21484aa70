// Auctions, members and the tenancy helpers under the request roles.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { authMigrations } from '@auction-ops/auth-core';
import { domainMigrations } from '../src/index.js';
import { asUser, claimsFor, closeClients, sqlState } from './support/as-user.js';
import { createAuction, createUser, type AuctionFixture } from './support/fixtures.js';

let db: TestDatabase;
let a: AuctionFixture;
let b: AuctionFixture;
beforeAll(async () => {
  db = await createTestDatabase([authMigrations, domainMigrations]);
  a = await createAuction(db.sql, 'alpha');
  b = await createAuction(db.sql, 'beta');
});
afterAll(async () => {
  await closeClients();
  await db.drop();
});

describe('auctions', () => {
  it('creating an auction makes the caller its owner and returns the row (insert ... returning)', async () => {
    const u = await createUser(db.sql, 'creator@x.test', 'Cre Ator');
    const [row] = await asUser(
      db.requestUrl,
      claimsFor(u),
      (tx) => tx`insert into public.auctions (name, slug) values ('New', 'new-one') returning *`,
    );
    expect(row.settings).toEqual({ timezone: 'UTC' });
    expect(row.subscription_tier).toBe('free');
    const roles = await asUser(
      db.requestUrl,
      claimsFor(u),
      (tx) =>
        tx`select public.get_user_auction_role(${row.id}) as role, public.is_auction_admin_or_above(${row.id}) as
          admin`,
    );
    expect(roles[0]).toEqual({ role: 'owner', admin: true });
  });

  it('refuses an auction created with an unknown time zone', async () => {
    const u = await createUser(db.sql, 'zone@x.test', 'Zo Ne');
    expect(
      await sqlState(
        asUser(
          db.requestUrl,
          claimsFor(u),
          (tx) =>
            tx`insert into public.auctions (name, slug, settings)
              values ('Z', 'zone-one', ${db.sql.json({ timezone: 'Mars/Olympus' })}) returning id`,
        ),
      ),
    ).toBe('22023');
  });

  it('members see only their auctions; anonymous callers are refused', async () => {
    const rows = await asUser(db.requestUrl, claimsFor(a.member), (tx) => tx`select id from public.auctions`);
    expect(rows.map((r) => r.id)).toEqual([a.auctionId]);
    expect(await sqlState(asUser(db.requestUrl, claimsFor(null), (tx) => tx`select id from public.auctions`))).toBe(
      '42501',
    );
  });

  it('helpers answer for the caller', async () => {
    const [r] = await asUser(
      db.requestUrl,
      claimsFor(a.member),
      (tx) => tx`
      select public.is_auction_member(${a.auctionId}) m, public.is_auction_member(${b.auctionId}) o,
             public.is_auction_admin_or_above(${a.auctionId}) adm, public.get_user_auction_role(${a.auctionId}) role,
             public.is_super_admin() s`,
    );
    expect(r).toEqual({ m: true, o: false, adm: false, role: 'team_member', s: false });
  });

  it('admins update settings; team members cannot; an unknown time zone is rejected', async () => {
    const upd = await asUser(
      db.requestUrl,
      claimsFor(a.admin),
      (tx) =>
        tx`update public.auctions
          set settings = ${db.sql.json({ timezone: 'Europe/Berlin', members_can_create_channels: false })}
          where id = ${a.auctionId} returning settings`,
    );
    expect(upd[0].settings.timezone).toBe('Europe/Berlin');
    const none = await asUser(
      db.requestUrl,
      claimsFor(a.member),
      (tx) => tx`update public.auctions set name = 'x' where id = ${a.auctionId} returning id`,
    );
    expect(none).toHaveLength(0);
    expect(
      await sqlState(
        asUser(
          db.requestUrl,
          claimsFor(a.admin),
          (tx) =>
            tx`update public.auctions set settings = ${db.sql.json({ timezone: 'Mars/Base' })}
              where id = ${a.auctionId}`,
        ),
      ),
    ).toBe('22023');
  });

  it('users see profiles of co-members and themselves only', async () => {
    const rows = await asUser(
      db.requestUrl,
      claimsFor(a.member),
      (tx) => tx`select email from public.users order by email`,
    );
    expect(rows.map((r) => r.email)).toEqual(['admin@alpha.test', 'member@alpha.test', 'owner@alpha.test']);
  });

  it('only an owner deletes an auction, and the delete marks it (soft delete, domain/0031)', async () => {
    const c = await createAuction(db.sql, 'gamma');
    // Its admin is refused, not answered with no row (0034).
    const byAdmin = asUser(
      db.requestUrl,
      claimsFor(c.admin),
      (tx) => tx`delete from public.auctions where id = ${c.auctionId} returning id`,
    );
    await expect(byAdmin).rejects.toMatchObject({ code: '42501' });
    const byOwner = await asUser(
      db.requestUrl,
      claimsFor(c.owner),
      (tx) => tx`delete from public.auctions where id = ${c.auctionId} returning id`,
    );
    // The trigger skips the row (as PostgREST answers a skipped delete: nothing returned) and marks it instead.
    expect(byOwner).toHaveLength(0);
    const [row] = await db.sql`select deleted_at, deleted_by, purge_after - deleted_at as grace from public.auctions
      where id = ${c.auctionId}`;
    expect(row).toMatchObject({ deleted_by: c.owner });
    expect(row!.deleted_at).toBeInstanceOf(Date);
  });
});

describe('tenant keys', () => {
  it('refuses references into another auction (foreign keys on id and auction_id), as 23503', async () => {
    const place = async (f: AuctionFixture) => {
      const [loc] =
        await db.sql`insert into public.locations (auction_id, name) values (${f.auctionId}, 'Lot') returning id`;
      const [type] = await db.sql`insert into public.submission_types (auction_id, name) values (${f.auctionId}, 'Cars')
          returning id`;
      return { location: loc!.id as string, type: type!.id as string };
    };
    const [pa, pb] = [await place(a), await place(b)];
    const [sub] =
      await db.sql`insert into public.lot_submissions (location_id, auction_id) values (${pa.location}, ${b.auctionId})
        returning id, auction_id`;
    expect(sub!.auction_id).toBe(a.auctionId);
    const refused = [
      db.sql`insert into public.location_submission_types (location_id, submission_type_id)
        values (${pa.location}, ${pb.type})`,
      db.sql`insert into public.lot_submission_entries (submission_id, submission_type_id, car_count)
        values (${sub!.id}, ${pb.type}, 1)`,
      db.sql`update public.lot_submissions set location_id = ${pb.location} where id = ${sub!.id}`,
      db.sql`insert into public.quality_inspections (auction_id, location_id, vin_number)
        values (${a.auctionId}, ${pb.location}, '1HGCM82633A004352')`,
    ];
    for (const statement of refused) expect(await sqlState(statement)).toBe('23503');
  });
});

describe('anonymous users', () => {
  it('every table anon may not read refuses anonymous sign-ins by its restrictive policy', async () => {
    expect(await db.sql`select domain.tables_open_to_anonymous_users()::text as t`).toEqual([]);
  });

  it('a table added without domain.refuse_anonymous is listed', async () => {
    await db.sql`create table public.forgotten_guard (id int primary key)`;
    await db.sql`alter table public.forgotten_guard enable row level security`;
    try {
      expect(await db.sql`select domain.tables_open_to_anonymous_users()::text as t`).toEqual([
        { t: 'forgotten_guard' },
      ]);
      await db.sql`select domain.refuse_anonymous('public.forgotten_guard')`;
      expect(await db.sql`select domain.tables_open_to_anonymous_users()::text as t`).toEqual([]);
    } finally {
      await db.sql`drop table public.forgotten_guard`;
    }
  });
});
