// check-pending-submissions through POST /functions/v1 with the service role and a fixed clock (`now`): an
// auction in New York on the day clocks jump forward, a lot open 22:00-06:00 (a window spanning midnight):
// the right users, one grouped notification each, minutes overdue exact in real elapsed time, no repeat
// within the frequency, nothing outside the hours. Also submission pushes behind the auction's setting.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNotifyHarness, until, type NotifyHarness, type TestUser } from './functions-notify.fixture.js';

let h: NotifyHarness;
let owner: TestUser;
let admin: TestUser;
let member: TestUser;
let auctionId: string;
const loc: Record<string, string> = {};

beforeAll(async () => {
  h = await startNotifyHarness();
  ({
    auctionId,
    users: { olive: owner, adam: admin, tess: member },
  } = await h.arrangeTeam(
    {
      olive: { name: 'Olive Owner', role: 'owner', tokens: ['olive'] },
      adam: { name: 'Adam Admin', role: 'admin', tokens: [['adam', 'android']] },
      tess: { name: 'Tess Team', role: 'team_member', tokens: ['tess'] },
    },
    { timezone: 'America/New_York' },
  ));
  const add = async (name: string, start: string | null, end: string | null, freq: number) => {
    const [row] = await h.db.sql`
      insert into public.locations (auction_id, name, operating_hours_start, operating_hours_end,
                                    submission_frequency_minutes, created_at)
      values (${auctionId}, ${name}, ${start}, ${end}, ${freq}, '2026-01-01T00:00:00Z') returning id`;
    loc[name] = row.id;
  };
  await add('Night Lot', '22:00', '06:00', 60);
  await add('Yard', '22:00', '06:00', 120);
  await add('Day Lot', '08:00', '17:00', 60);
  await add('Fresh Lot', '22:00', '06:00', 60);
  // 23:30 EST on March 7 (before the jump), and 03:30 EDT on March 8 (after it).
  await h.db.sql`insert into public.lot_submissions (location_id, user_id, submitted_at)
    values (${loc['Night Lot']}, ${member.id}, '2026-03-08T04:30:00Z'),
           (${loc['Fresh Lot']}, ${member.id}, '2026-03-08T07:30:00Z')`;
});
afterAll(async () => {
  await h?.close();
});

const check = async (now: string) => {
  const res = await h.call('check-pending-submissions', {
    apikey: h.server.ctx.serviceRoleKey,
    bearer: h.server.ctx.serviceRoleKey,
    body: { now },
  });
  expect(res.status).toBe(200);
  return res.body as {
    checked_at: string;
    overdue_locations: number;
    notified_users: number;
    notifications_sent: number;
    locations: Array<{ location_name: string; minutes_overdue: number; notified_user_ids: string[] }>;
  };
};
const reminders = () => h.expo.delivered().filter((m) => m.data?.type === 'pending_submissions');

describe('check-pending-submissions with a fixed clock', () => {
  it('at 04:00 EDT, after the clocks jumped: both overnight lots, grouped per user, real minutes', async () => {
    const r = await check('2026-03-08T08:00:00Z');
    expect(r.checked_at).toBe('2026-03-08T08:00:00.000Z');
    // Yard: never counted, window opened 22:00 EST = 03:00Z, 300 real minutes ago (360 on the wall clock) - 120.
    // Night Lot: counted 04:30Z, 210 real minutes ago (270 on the wall clock) - 60.
    expect(r.locations.map((l) => [l.location_name, l.minutes_overdue])).toEqual([
      ['Yard', 180],
      ['Night Lot', 150],
    ]);
    const told = [owner.id, admin.id].sort();
    for (const l of r.locations) expect([...l.notified_user_ids].sort()).toEqual(told);
    expect(r).toMatchObject({ overdue_locations: 2, notified_users: 2, notifications_sent: 2 });
    const sent = reminders();
    expect(sent.map((m) => m.to).sort()).toEqual(['ExponentPushToken[adam]', 'ExponentPushToken[olive]']);
    for (const m of sent) {
      expect(m.title).toBe('2 locations are due for a count');
      expect(m.body).toBe('Yard: 3 h overdue\nNight Lot: 2 h 30 min overdue');
      expect(m.priority).toBe('high');
      expect(m.data).toEqual({
        type: 'pending_submissions',
        locations: [
          { location_id: loc.Yard, location_name: 'Yard', auction_id: auctionId, minutes_overdue: 180 },
          { location_id: loc['Night Lot'], location_name: 'Night Lot', auction_id: auctionId, minutes_overdue: 150 },
        ],
      });
    }
  });

  it('30 minutes later nobody is told again: both pairs are within their frequency', async () => {
    const before = reminders().length;
    const r = await check('2026-03-08T08:30:00Z');
    expect(r.locations.map((l) => [l.location_name, l.minutes_overdue, l.notified_user_ids])).toEqual([
      ['Yard', 210, []],
      ['Night Lot', 180, []],
    ]);
    expect(r).toMatchObject({ overdue_locations: 2, notified_users: 0, notifications_sent: 0 });
    expect(reminders().length).toBe(before);
  });

  it('past the hour the hourly lot is told again, the two-hourly one is not', async () => {
    const before = reminders().length;
    const r = await check('2026-03-08T09:01:00Z');
    expect(r.locations.map((l) => [l.location_name, l.minutes_overdue, l.notified_user_ids.length])).toEqual(
      [
        ['Yard', 241, 0],
        ['Fresh Lot', 31, 2],
        ['Night Lot', 211, 2],
      ].sort((a, b) => (b[1] as number) - (a[1] as number)),
    );
    const sent = reminders().slice(before);
    expect(sent.length).toBe(2);
    for (const m of sent) {
      expect(m.title).toBe('2 locations are due for a count');
      expect(m.body).toBe('Night Lot: 3 h 31 min overdue\nFresh Lot: 31 min overdue');
    }
  });

  it('after 06:00 local the overnight lots are closed and the day lot not open yet: nothing is overdue', async () => {
    const r = await check('2026-03-08T11:00:00Z');
    expect(r).toEqual({
      checked_at: '2026-03-08T11:00:00.000Z',
      overdue_locations: 0,
      notified_users: 0,
      notifications_sent: 0,
      locations: [],
    });
  });

  it('the day lot, once open, is overdue from its opening time', async () => {
    // 09:30 EDT: open since 08:00 local = 12:00Z, never counted: 90 minutes - 60.
    const r = await check('2026-03-08T13:30:00Z');
    expect(r.locations.map((l) => [l.location_name, l.minutes_overdue])).toEqual([['Day Lot', 30]]);
    expect(r.notifications_sent).toBe(2);
  });
});

describe('submission pushes', () => {
  it('notify the admins and owners (not the submitter) only when settings.push_on_submission is true', async () => {
    const before = h.expo.delivered().filter((m) => m.data?.type === 'submission').length;
    await h.db.sql`insert into public.lot_submissions (location_id, user_id) values (${loc['Day Lot']}, ${member.id})`;
    await h.db
      .sql`update public.auctions set settings = settings || '{"push_on_submission": true}' where id = ${auctionId}`;
    const [s] = await h.db.sql`
      insert into public.lot_submissions (location_id, user_id) values (${loc.Yard}, ${member.id}) returning id`;
    await until(async () => {
      const [j] = await h.db.sql`select status from notifications.push_jobs where subject_id = ${s.id}`;
      return j?.status === 'sent';
    }, 'the submission push');
    const sent = h.expo.delivered().filter((m) => m.data?.type === 'submission');
    expect(sent.length - before).toBe(2);
    expect(
      sent
        .slice(before)
        .map((m) => m.to)
        .sort(),
    ).toEqual(['ExponentPushToken[adam]', 'ExponentPushToken[olive]']);
    expect(sent[before].title).toBe('New submission at Yard');
    expect(sent[before].body).toBe('Tess Team counted 0 cars');
    expect(sent[before].data).toEqual({
      type: 'submission',
      auction_id: auctionId,
      submission_id: s.id,
      location_id: loc.Yard,
    });
    const jobs = await h.db.sql`select count(*)::int as n from notifications.push_jobs where kind = 'submission'`;
    expect(jobs[0].n).toBe(1);
  });
});
