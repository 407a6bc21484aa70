// The analytics rollups (0012): exact after the migration's backfill and the seed, after edits, moves and deletes,
// and under 16 concurrent writers; the RPCs that read them answer exactly as 0007's did (kept here in a
// `legacy` schema) for every role, for ranges on and off the hour, in a whole-hour and a half-hour time zone.
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { authMigrations } from '@auction-ops/auth-core';
import { domainMigrations, seedDemo, type SeedResult } from '../src/index.js';
import { asUser, claimsFor, closeClients, type Claims } from './support/as-user.js';
import { createLegacyFunctions } from './support/legacy-functions.js';

let db: TestDatabase;
let seeded: SeedResult;
const people: Record<string, string> = {};
const NOW = new Date('2030-03-01T18:00:00Z');

beforeAll(async () => {
  db = await createTestDatabase([authMigrations, domainMigrations]);
  // 0007's analytics functions: the reference the rollup-backed ones must match.
  await createLegacyFunctions(
    db.sql,
    '0007-analytics.sql',
    'create function public.get_location_stats',
    '-- Active locations',
  );
  seeded = await seedDemo(db.sql, { scale: 1, days: 10, now: NOW, hashPassword: async (p) => `plain:${p}` });
  for (const u of seeded.users) {
    const [row] = await db.sql`select id from auth.users where email = ${u.email}`;
    people[u.email.split('@')[0]!] = row!.id as string;
  }
  // Bayside moves to India (UTC+5:30): one UTC hour per local day is split by midnight.
  await db.sql`update public.auctions set settings = settings || '{"timezone": "Asia/Kolkata"}'
    where id = ${seeded.auctions[1]!.id}`;
});
afterAll(async () => {
  await closeClients();
  await db.drop();
});

const differences = () => db.sql`select * from analytics.differences()`;
const serviceRole: Claims = { role: 'service_role' };

const RANGES: [string, string][] = [
  ['2030-02-20T00:00:00Z', '2030-03-01T18:00:00Z'], // on the hour
  ['2030-02-19T07:13:27.5Z', '2030-02-27T16:41:09Z'], // off the hour at both ends
  ['2030-02-25T10:15:00Z', '2030-02-25T10:45:00Z'], // inside one hour
  ['2030-02-25T10:00:00Z', '2030-02-25T10:59:59.999999Z'], // exactly one hour, inclusive end
  ['2030-02-26T00:00:00Z', '2030-02-24T00:00:00Z'], // reversed: nothing
  ['2030-01-01T00:00:00Z', '2030-12-31T00:00:00Z'], // everything
];
/** Defect trends cut it to the years with inspections. */
const CENTURY: [string, string] = ['1990-01-01T00:00:00Z', '2100-01-01T00:00:00Z'];

/** Every analytics RPC over every range, as the given caller, from the schema named. */
async function answers(schema: 'public' | 'legacy', claims: Claims, ranges = RANGES): Promise<unknown[]> {
  const s = db.sql(schema);
  return asUser(db.requestUrl, claims, async (tx) => {
    const out: unknown[] = [];
    const locations = await tx`select id from public.locations order by name, id`;
    for (const [start, end] of ranges) {
      out.push(await tx`select * from ${s}.get_all_locations_stats(${start}, ${end})`);
      out.push(
        await tx`select day::text, category_id, category, defect_count
        from ${s}.get_defect_trends(${start}, ${end}, null)`,
      );
      for (const l of locations) {
        out.push(await tx`select ${s}.get_location_stats(${l.id}, ${start}, ${end}) r`);
        out.push(
          await tx`select day::text, category_id, category, defect_count
          from ${s}.get_defect_trends(${start}, ${end}, ${l.id})`,
        );
      }
    }
    return out;
  });
}

async function expectSameAnswersAsBefore(ranges = RANGES): Promise<void> {
  // The owner and admin read everything; lot1 is a team member at some locations who also inspected elsewhere;
  // the inspector is a team member without submissions; the service role bypasses row-level security.
  for (const claims of [claimsFor(people.owner!), claimsFor(people.lot1!), claimsFor(people.inspector!), serviceRole]) {
    const now = await answers('public', claims, ranges);
    expect(now.some((r) => (r as unknown[]).length > 0)).toBe(true);
    expect(now).toEqual(await answers('legacy', claims, ranges));
  }
}

describe('after the seed', () => {
  it('the rollups match their rows', async () => {
    expect(await differences()).toEqual([]);
    const [n] = await db.sql`select count(*)::int as n from analytics.defect_hours`;
    expect(n!.n).toBeGreaterThan(100);
  });

  it("the RPCs answer as 0007's did, for every role and range", () => expectSameAnswersAsBefore());

  it('a team member counts their own inspections at locations they are not assigned to', async () => {
    const [own] = await db.sql`select count(*)::int as n from public.quality_inspections i
      where i.user_id = ${people.lot1!} and not exists (select 1 from public.location_assignments la
        where la.location_id = i.location_id and la.user_id = i.user_id)`;
    expect(own!.n).toBeGreaterThan(0); // the case the comparison above covers
  });
});

describe('defect trends over a long range', () => {
  const riverside = () => seeded.auctions[0]!.id;
  const bayside = () => seeded.auctions[1]!.id;
  const yearsOf = async (who: string) =>
    (
      await asUser(
        db.requestUrl,
        claimsFor(people[who]!),
        (tx) => tx`select lo::text, hi::text from analytics.inspection_years()`,
      )
    )[0];

  /** An inspection with one defect at the given time, at the auction's first location. */
  async function inspectAt(auction: string, at: string): Promise<string> {
    const [loc] = await db.sql`select id from public.locations where auction_id = ${auction} order by name limit 1`;
    const [cat] = await db.sql`select id from public.defect_categories where auction_id is null order by name limit 1`;
    const [i] = await db.sql`insert into public.quality_inspections (auction_id, location_id, vin_number, submitted_at)
      values (${auction}, ${loc!.id}, '1HGCM82633A004352', ${at}) returning id`;
    await db.sql`insert into public.quality_defects (inspection_id, category_id) values (${i!.id}, ${cat!.id})`;
    return i!.id as string;
  }

  it('lose no row at the edges of the years the range is cut to', async () => {
    // The first instant of a year in one auction, the last of another year in the other (India: already the next
    // local day and year): the cut's edges, a day wider than these, must still take them in.
    const edges = [
      await inspectAt(riverside(), '2027-01-01T00:00:00Z'),
      await inspectAt(bayside(), '2033-12-31T23:59:59.999999Z'),
    ];
    try {
      expect(await yearsOf('admin')).toEqual({ lo: '2026-12-31 00:00:00+00', hi: '2034-01-02 00:00:00+00' });
      await expectSameAnswersAsBefore([CENTURY]);
    } finally {
      await db.sql`delete from public.quality_inspections where id = any(${edges})`;
    }
  });

  it("tell a caller the years of their own auctions' inspections only", async () => {
    const other = await inspectAt(bayside(), '2041-06-01T12:00:00Z');
    try {
      const [riversideOnly] = await db.sql`select u.email from auth.users u
        join public.auction_members m on m.user_id = u.id group by u.email
        having bool_and(m.auction_id = ${riverside()}) order by u.email limit 1`;
      const who = (riversideOnly!.email as string).split('@')[0]!;
      expect((await yearsOf(who))!.hi).toBe('2031-01-02 00:00:00+00');
      expect((await yearsOf('admin'))!.hi).toBe('2042-01-02 00:00:00+00');
      // Not a function of the data interface: only the RPC that uses it is.
      const anon = await asUser(db.requestUrl, claimsFor(null), (tx) => tx`select analytics.inspection_years()`).catch(
        (e) => e,
      );
      expect(anon.code).toBe('42501');
    } finally {
      await db.sql`delete from public.quality_inspections where id = ${other}`;
    }
  });
});

describe('writes keep the rollups exact', () => {
  it('edits, moves and deletes of submissions, entries, inspections and defects', async () => {
    const sql = db.sql;
    const riverside = seeded.auctions[0]!.id;
    const [a, b] = await sql`select id from public.locations where auction_id = ${riverside} order by name limit 2`;
    const some = (table: string, n: number) =>
      sql`select id from ${sql(table)} where auction_id = ${riverside} order by md5(id::text) limit ${n}`;

    await sql`update public.lot_submission_entries set car_count = car_count + 7
      where id in (select id from public.lot_submission_entries order by md5(id::text) limit 50)`;
    await sql`update public.lot_submission_entries e set submission_type_id = (
        select lst.submission_type_id from public.location_submission_types lst
        where lst.location_id = e.location_id and lst.submission_type_id <> e.submission_type_id limit 1)
      where id in (select id from public.lot_submission_entries order by md5(id::text) offset 50 limit 20)`;
    expect(await differences()).toEqual([]);

    const moved = (await some('lot_submissions', 30)).map((r) => r.id);
    await sql`update public.lot_submissions set submitted_at = submitted_at + interval '37 minutes' where id = any(${moved.slice(0, 15)})`;
    await sql`update public.lot_submissions set location_id = ${b!.id} where id = any(${moved.slice(15)})`;
    expect(await differences()).toEqual([]);

    await sql`delete from public.lot_submission_entries where id in (
      select id from public.lot_submission_entries order by md5(id::text) offset 100 limit 25)`;
    await sql`delete from public.lot_submissions where id = any(${moved.slice(0, 10)})`;
    expect(await differences()).toEqual([]);

    const inspections = (await some('quality_inspections', 20)).map((r) => r.id);
    const [dent] = await sql`select id from public.defect_categories where auction_id is null order by name limit 1`;
    await sql`insert into public.quality_defects (inspection_id, auction_id, category_id)
      select i, ${riverside}, ${dent!.id} from unnest(${inspections}::uuid[]) i`;
    await sql`update public.quality_defects set category_id = ${dent!.id}
      where id in (select id from public.quality_defects order by md5(id::text) limit 30)`;
    await sql`update public.quality_inspections set submitted_at = submitted_at - interval '3 hours',
      location_id = ${a!.id} where id = any(${inspections.slice(0, 8)})`;
    await sql`delete from public.quality_defects where id in (select id from public.quality_defects
      order by md5(id::text) offset 30 limit 30)`;
    await sql`delete from public.quality_inspections where id = any(${inspections.slice(8, 14)})`;
    // Another inspector: the defects move to their rows (a team member reads their own inspections anywhere).
    await sql`update public.quality_inspections set user_id = ${people.lot1!} where id = any(${inspections.slice(14)})`;
    expect(await differences()).toEqual([]);
    await expectSameAnswersAsBefore();
  });

  it('a submission through the RPC, as a team member, is counted in its hour', async () => {
    const [loc] = await db.sql`select la.location_id as id from public.location_assignments la
      where la.user_id = ${people.lot1!} limit 1`;
    const types = await db.sql`select submission_type_id as id from public.location_submission_types
      where location_id = ${loc!.id}`;
    const before = await db.sql`select coalesce(sum(cars), 0)::int as cars from analytics.submission_hours
      where location_id = ${loc!.id}`;
    await asUser(
      db.requestUrl,
      claimsFor(people.lot1!),
      (tx) =>
        tx`select public.create_lot_submission_with_entries(${loc!.id},
        ${tx.json(types.map((t, i) => ({ submission_type_id: t.id, car_count: i + 1 })))})`,
    );
    const after = await db.sql`select coalesce(sum(cars), 0)::int as cars from analytics.submission_hours
      where location_id = ${loc!.id}`;
    expect(after[0]!.cars - before[0]!.cars).toBe((types.length * (types.length + 1)) / 2);
    expect(await differences()).toEqual([]);
  });

  it('deleting a location or an auction takes its rollup rows along', async () => {
    const bayside = seeded.auctions[1]!.id;
    const [loc] = await db.sql`select id from public.locations where auction_id = ${bayside} limit 1`;
    await db.sql`delete from public.locations where id = ${loc!.id}`;
    expect(await differences()).toEqual([]);
    const [left] =
      await db.sql`select count(*)::int as n from analytics.submission_hours where location_id = ${loc!.id}`;
    expect(left!.n).toBe(0);

    // The whole auction, with inspections and defects: its children may be removed after the auction row (whose
    // time zone then cannot be read), and no rollup row of it may stay behind.
    const [counts] =
      await db.sql`select (select count(*) from public.quality_defects where auction_id = ${bayside})::int as defects`;
    expect(counts!.defects).toBeGreaterThan(0);
    await db.sql`delete from public.auctions where id = ${bayside}`;
    expect(await differences()).toEqual([]);
    const [rows] = await db.sql`select
      (select count(*) from analytics.submission_hours where auction_id = ${bayside})
      + (select count(*) from analytics.submission_type_hours where auction_id = ${bayside})
      + (select count(*) from analytics.defect_hours where auction_id = ${bayside})
      + (select count(*) from analytics.defect_days where auction_id = ${bayside}) as n`;
    expect(Number(rows!.n)).toBe(0);
  });
});

describe('verify and rebuild', () => {
  it('differences() names a bucket that no longer matches its rows, and rebuild() repairs it', async () => {
    await db.sql`update analytics.submission_hours set cars = cars + 1
      where (location_id, hour) in (select location_id, hour from analytics.submission_hours limit 1)`;
    await db.sql`delete from analytics.defect_hours where (location_id, hour, category_id) in
      (select location_id, hour, category_id from analytics.defect_hours where defects > 0 limit 1)`;
    const diffs = await differences();
    expect(diffs.map((d) => d.rollup).sort()).toEqual(['defect_hours', 'submission_hours']);
    expect(diffs.every((d) => d.location_id && d.bucket)).toBe(true);
    expect(diffs.find((d) => d.rollup === 'defect_hours')!.stored).toBeNull();
    expect(diffs.find((d) => d.rollup === 'submission_hours')!.expected).toMatchObject({ cars: expect.any(Number) });
    await db.sql`select analytics.rebuild()`;
    expect(await differences()).toEqual([]);
  });

  it('authenticated callers may read their rollups but not rebuild them', async () => {
    const err = await asUser(db.requestUrl, claimsFor(people.owner!), (tx) => tx`select analytics.rebuild()`).catch(
      (e) => e,
    );
    expect(err.code).toBe('42501');
  });
});

describe('16 concurrent writers', () => {
  it('lose no update: each adds submissions, entries and defects in the same buckets at once', async () => {
    const riverside = seeded.auctions[0]!.id;
    const [loc] = await db.sql`select id from public.locations where auction_id = ${riverside} order by name limit 1`;
    const types = await db.sql`select submission_type_id as id from public.location_submission_types
      where location_id = ${loc!.id} order by display_order`;
    const cats = await db.sql`select id from public.defect_categories where auction_id is null order by name limit 3`;
    const at = '2030-02-28T15:20:00Z';
    const hourOf = '2030-02-28T15:00:00Z';
    const read = async () => {
      const [s] = await db.sql`select coalesce(sum(submissions), 0)::int as n, coalesce(sum(cars), 0)::int as cars
        from analytics.submission_hours where location_id = ${loc!.id} and hour = ${hourOf}`;
      const [d] = await db.sql`select coalesce(sum(defects), 0)::int as n from analytics.defect_hours
        where location_id = ${loc!.id} and hour = ${hourOf}`;
      return { submissions: s!.n, cars: s!.cars, defects: d!.n };
    };
    const before = await read();
    const WRITERS = 16;
    const ROUNDS = 5;
    const clients = Array.from({ length: WRITERS }, () => postgres(db.ownerUrl, { max: 1, onnotice: () => {} }));
    try {
      await Promise.all(
        clients.map(async (c) => {
          for (let r = 0; r < ROUNDS; r++) {
            await c.begin(async (tx) => {
              const [s] = await tx`insert into public.lot_submissions (auction_id, location_id, submitted_at)
                values (${riverside}, ${loc!.id}, ${at}) returning id`;
              await tx`insert into public.lot_submission_entries (submission_id, submission_type_id, car_count)
                select ${s!.id}, t, 2 from unnest(${types.map((t) => t.id)}::uuid[]) t`;
              const [i] =
                await tx`insert into public.quality_inspections (auction_id, location_id, vin_number, submitted_at)
                values (${riverside}, ${loc!.id}, '1HGCM82633A004352', ${at}) returning id`;
              await tx`insert into public.quality_defects (inspection_id, category_id)
                select ${i!.id}, c from unnest(${cats.map((c) => c.id)}::uuid[]) c`;
            });
          }
        }),
      );
    } finally {
      await Promise.all(clients.map((c) => c.end()));
    }
    const after = await read();
    const n = WRITERS * ROUNDS;
    expect(after).toEqual({
      submissions: before.submissions + n,
      cars: before.cars + n * types.length * 2,
      defects: before.defects + n * cats.length,
    });
    expect(await differences()).toEqual([]);
  });
});
