// Analytics and read-state RPCs on a known data set: an auction in Los Angeles time (UTC-8 in January), one
// location open 22:00-06:00 (spanning midnight), one open 08:00-17:00, one always open, one inactive.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { authMigrations } from '@auction-ops/auth-core';
import { domainMigrations } from '../src/index.js';
import { asUser, claimsFor, closeClients } from './support/as-user.js';
import { createAuction, type AuctionFixture } from './support/fixtures.js';

let db: TestDatabase;
let t: AuctionFixture;
const ids: Record<string, string> = {};
beforeAll(async () => {
  db = await createTestDatabase([authMigrations, domainMigrations]);
  const sql = db.sql;
  t = await createAuction(sql, 'la', 'America/Los_Angeles');
  const loc = async (name: string, start: string | null, end: string | null, freq: number, active = true) =>
    (
      await sql`insert into public.locations (auction_id, name, operating_hours_start, operating_hours_end,
        submission_frequency_minutes, is_active, created_at)
      values (${t.auctionId}, ${name}, ${start}, ${end}, ${freq}, ${active}, '2030-01-01T00:00:00Z') returning id`
    )[0].id as string;
  ids.night = await loc('Night lot', '22:00', '06:00', 60);
  ids.day = await loc('Day lot', '08:00', '17:00', 30);
  ids.always = await loc('Always lot', '00:00', '00:00', 60);
  ids.closed = await loc('Closed lot', null, null, 120, false);
  await sql`insert into public.location_assignments (location_id, user_id)
    select id, ${t.member} from public.locations where auction_id = ${t.auctionId}`;
  ids.sold = (
    await sql`insert into public.submission_types (auction_id, name) values (${t.auctionId}, 'Sold') returning id`
  )[0].id;
  ids.unsold = (
    await sql`insert into public.submission_types (auction_id, name) values (${t.auctionId}, 'Unsold') returning id`
  )[0].id;
  const sub = async (location: string, at: string, entries: [string, number][]) => {
    const [s] = await sql`insert into public.lot_submissions (auction_id, location_id, user_id, submitted_at)
        values (${t.auctionId}, ${location}, ${t.member}, ${at}) returning id`;
    for (const [type, n] of entries) {
      await sql`insert into public.lot_submission_entries (submission_id, auction_id, submission_type_id, car_count)
        values (${s.id}, ${t.auctionId}, ${type}, ${n})`;
    }
  };
  await sub(ids.night, '2030-01-14T06:00:00Z', [
    [ids.sold, 5],
    [ids.unsold, 3],
  ]);
  await sub(ids.night, '2030-01-15T05:00:00Z', [[ids.sold, 2]]); // the range's inclusive end
  await sub(ids.night, '2030-01-16T05:00:00Z', [[ids.sold, 100]]); // outside the range
  await sub(ids.day, '2030-01-15T16:45:00Z', [[ids.sold, 1]]);
  // Inspections: 03:00Z on the 15th is the 14th in Los Angeles; 09:00Z is the 15th.
  const dent = (await sql`select id from public.defect_categories where name = 'Dent' and auction_id is null`)[0].id;
  const rust = (await sql`select id from public.defect_categories where name = 'Rust' and auction_id is null`)[0].id;
  const insp = async (at: string, cats: string[]) => {
    const [i] =
      await sql`insert into public.quality_inspections (auction_id, location_id, user_id, vin_number, submitted_at)
      values (${t.auctionId}, ${ids.night}, ${t.member}, '1HGCM82633A004352', ${at}) returning id`;
    for (const c of cats)
      await sql`insert into public.quality_defects (auction_id, inspection_id, category_id)
        values (${t.auctionId}, ${i.id}, ${c})`;
  };
  await insp('2030-01-15T03:00:00Z', [dent, dent, rust]);
  await insp('2030-01-15T09:00:00Z', [dent]);
  ids.dent = dent;
  ids.rust = rust;
});
afterAll(async () => {
  await closeClients();
  await db.drop();
});

const as = <T>(user: string, fn: Parameters<typeof asUser<T>>[2]) => asUser(db.requestUrl, claimsFor(user), fn);
const RANGE = { start: '2030-01-14T00:00:00Z', end: '2030-01-15T05:00:00Z' };

describe('get_location_stats', () => {
  it('counts submissions and cars in an inclusive range, by type', async () => {
    const [r] = await as(
      t.member,
      (tx) =>
        tx`select public.get_location_stats(p_location_id := ${ids.night}, p_start_date := ${RANGE.start},
          p_end_date := ${RANGE.end}) s`,
    );
    expect(r.s).toEqual({
      total_submissions: 2,
      total_car_count: 10,
      average_car_count: 5,
      by_type: [
        { type_name: 'Sold', count: 7 },
        { type_name: 'Unsold', count: 3 },
      ],
    });
  });

  it('an empty range gives zeros', async () => {
    const [r] = await as(
      t.member,
      (tx) =>
        tx`select public.get_location_stats(p_location_id := ${ids.day}, p_start_date := '2029-01-01',
          p_end_date := '2029-02-01') s`,
    );
    expect(r.s).toMatchObject({ total_submissions: 0, total_car_count: 0, average_car_count: 0, by_type: [] });
  });
});

it('get_all_locations_stats covers every visible location', async () => {
  const rows = await as(
    t.admin,
    (tx) =>
      tx`select * from public.get_all_locations_stats(p_start_date := ${RANGE.start}, p_end_date := ${RANGE.end})`,
  );
  const byName = Object.fromEntries(rows.map((r) => [r.location_name, r]));
  expect(Object.keys(byName).sort()).toEqual(['Always lot', 'Closed lot', 'Day lot', 'Night lot']);
  expect(byName['Night lot']).toMatchObject({ total_submissions: 2, total_car_count: 10, auction_id: t.auctionId });
  expect(Number(byName['Night lot'].average_car_count)).toBe(5);
  expect(byName['Night lot'].last_submitted_at.toISOString()).toBe('2030-01-16T05:00:00.000Z');
  expect(byName['Day lot']).toMatchObject({ total_submissions: 0, total_car_count: 0 });
});

it('get_defect_trends buckets by day in the auction time zone', async () => {
  const rows = await as(
    t.member,
    (tx) => tx`select day::text, category, defect_count from public.get_defect_trends(
    p_start_date := '2030-01-14T00:00:00Z', p_end_date := '2030-01-16T00:00:00Z', p_location_id := null)`,
  );
  expect(rows).toEqual([
    { day: '2030-01-14', category: 'Dent', defect_count: 2 },
    { day: '2030-01-14', category: 'Rust', defect_count: 1 },
    { day: '2030-01-15', category: 'Dent', defect_count: 1 },
  ]);
  const other = await as(
    t.member,
    (tx) => tx`select * from public.get_defect_trends(
    p_start_date := '2030-01-14T00:00:00Z', p_end_date := '2030-01-16T00:00:00Z', p_location_id := ${ids.day})`,
  );
  expect(other).toEqual([]);
});

describe('get_pending_submissions', () => {
  const pending = async (now: string) => {
    const rows = await as(
      t.member,
      (tx) =>
        tx`select location_name, minutes_overdue, last_submitted_at
          from public.get_pending_submissions(p_now := ${now})`,
    );
    return Object.fromEntries(rows.map((r) => [r.location_name, r.minutes_overdue]));
  };

  it('23:30 local: the overnight lot is open and overdue since its opening; the day lot is closed', async () => {
    // 07:30Z = 23:30 on the 14th in Los Angeles. Night lot last submitted 05:00Z (21:00 local, before its 22:00
    // opening): counted from the opening, 90 min ago, minus its frequency of 60.
    // Always lot never submitted: its window opened at 00:00 local (08:00Z on the 14th), 1410 min, minus 60.
    expect(await pending('2030-01-15T07:30:00Z')).toEqual({ 'Always lot': 1350, 'Night lot': 30 });
  });

  it('a lot whose last submission was yesterday is not overdue until its frequency has passed since opening', async () => {
    // The Day lot (08:00-17:00, every 30 min) last submitted at 08:45 local on the 15th.
    expect(await pending('2030-01-16T16:20:00Z')).not.toHaveProperty('Day lot'); // 08:20 local on the 16th
    expect((await pending('2030-01-16T16:40:00Z'))['Day lot']).toBe(10);
  });

  it('05:59 local the overnight window is still open; at 06:00 it has closed', async () => {
    expect(await pending('2030-01-15T13:59:00Z')).toHaveProperty('Night lot');
    expect(await pending('2030-01-15T14:00:00Z')).not.toHaveProperty('Night lot');
  });

  it('the day lot is pending only inside its hours and once its frequency has passed', async () => {
    expect(await pending('2030-01-15T17:00:00Z')).not.toHaveProperty('Day lot'); // 09:00 local, 15 min since last
    expect((await pending('2030-01-15T17:31:00Z'))['Day lot']).toBe(16); // 46 min since last, frequency 30
    expect(await pending('2030-01-16T02:00:00Z')).not.toHaveProperty('Day lot'); // 18:00 local: closed
  });

  it("another auction's member sees nothing of it", async () => {
    const o = await createAuction(db.sql, 'other-la');
    const rows = await as(
      o.member,
      (tx) => tx`select * from public.get_pending_submissions(p_now := '2030-01-15T07:30:00Z')`,
    );
    expect(rows).toEqual([]);
  });
});

describe('unread counts', () => {
  it('counts messages by others after the last read, per non-archived channel', async () => {
    await db.sql`update public.auction_members set joined_at = '2020-01-01' where auction_id = ${t.auctionId}`;
    const [c1] =
      await db.sql`insert into public.channels (auction_id, name) values (${t.auctionId}, 'ops') returning id`;
    const [c2] =
      await db.sql`insert into public.channels (auction_id, name, is_archived) values (${t.auctionId}, 'old', true)
        returning id`;
    const post = (channel: string, user: string, content: string) =>
      db.sql`insert into public.messages (auction_id, channel_id, user_id, content)
        values (${t.auctionId}, ${channel}, ${user}, ${content}) returning id`;
    const [top] = await post(c1.id, t.admin, 'one');
    await post(c1.id, t.owner, 'two');
    await post(c1.id, t.member, 'mine');
    await post(c2.id, t.admin, 'archived');
    await db.sql`insert into public.messages (auction_id, channel_id, user_id, content, parent_message_id)
      values (${t.auctionId}, ${c1.id}, ${t.admin}, 'reply', ${top.id})`;
    const [del] = await post(c1.id, t.admin, 'gone');
    await db.sql`update public.messages set is_deleted = true where id = ${del.id}`;
    const [total] = await as(
      t.member,
      (tx) => tx`select public.get_total_unread_count(p_auction_id := ${t.auctionId}) n`,
    );
    expect(total.n).toBe(3);
    const per = await as(t.member, (tx) => tx`select * from public.get_unread_counts(p_auction_id := ${t.auctionId})`);
    expect(per).toEqual([{ channel_id: c1.id, unread_count: 3 }]);
    const [read] = await as(t.member, (tx) => tx`select public.mark_channel_as_read(p_channel_id := ${c1.id}) r`);
    expect(Object.keys(read.r).sort()).toEqual(['channel_id', 'last_read_at']);
    const [after] = await as(
      t.member,
      (tx) => tx`select public.get_total_unread_count(p_auction_id := ${t.auctionId}) n`,
    );
    expect(after.n).toBe(0);
    const [view] = await as(
      t.member,
      (tx) => tx`select reply_count, last_reply_at from public.messages_with_reply_count where id = ${top.id}`,
    );
    expect(view.reply_count).toBe(1);
  });
});
