// Assigned locations in the notifications: an overdue location notifies the users assigned to it (its admins and
// owners only when nobody is), and a chat channel tied to a location notifies only the team members assigned there.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNotifyHarness, until, type NotifyHarness, type TestUser } from './functions-notify.fixture.js';

let h: NotifyHarness;
let owner: TestUser;
let assigned: TestUser;
let auctionId: string;
let gateId: string;
let yardId: string;

beforeAll(async () => {
  h = await startNotifyHarness();
  ({
    auctionId,
    users: { olive: owner, asa: assigned },
  } = await h.arrangeTeam({
    olive: { name: 'Olive Owner', role: 'owner', tokens: ['olive'] },
    asa: { name: 'Asa Assigned', role: 'team_member', tokens: ['asa'] },
    ona: { name: 'Ona Other', role: 'team_member', tokens: ['ona'] },
  }));
  const [gate] = await h.db
    .sql`insert into public.locations (auction_id, name, submission_frequency_minutes, created_at)
    values (${auctionId}, 'Gate', 30, '2026-01-01T00:00:00Z') returning id`;
  const [yard] = await h.db
    .sql`insert into public.locations (auction_id, name, submission_frequency_minutes, created_at)
    values (${auctionId}, 'Yard', 30, '2026-01-01T00:00:00Z') returning id`;
  gateId = gate.id;
  yardId = yard.id;
  await h.db.sql`insert into public.location_assignments (auction_id, location_id, user_id)
    values (${auctionId}, ${gateId}, ${assigned.id})`;
});
afterAll(async () => {
  await h?.close();
});

describe('assigned locations', () => {
  it('an overdue location tells its assigned user; one without assignments tells the admins and owners', async () => {
    const res = await h.call('check-pending-submissions', {
      bearer: h.server.ctx.serviceRoleKey,
      body: { now: '2026-01-01T02:00:00Z' },
    });
    expect(res.status).toBe(200);
    const locations = res.body.locations as Array<{ location_id: string; notified_user_ids: string[] }>;
    expect(Object.fromEntries(locations.map((l) => [l.location_id, l.notified_user_ids]))).toEqual({
      [gateId]: [assigned.id],
      [yardId]: [owner.id],
    });
    const sent = h.expo.delivered().filter((m) => m.data?.type === 'pending_submissions');
    expect(sent.map((m) => [m.to, m.title]).sort()).toEqual([
      ['ExponentPushToken[asa]', 'Gate is due for a count'],
      ['ExponentPushToken[olive]', 'Yard is due for a count'],
    ]);
  });

  it('a channel tied to a location notifies only the team members assigned to it, and the admins', async () => {
    const { data: channel, error } = await owner.client
      .from('channels')
      .insert({ auction_id: auctionId, name: 'gate-crew', location_id: gateId })
      .select('id')
      .single();
    if (error) throw error;
    const [m] = await h.db.sql`insert into public.messages (auction_id, channel_id, user_id, content)
      values (${auctionId}, ${channel.id}, ${owner.id}, 'Gate closes at 6') returning id`;
    await until(async () => {
      const [j] = await h.db.sql`select status from notifications.push_jobs where subject_id = ${m.id}`;
      return j?.status === 'sent';
    }, 'the chat job');
    const sent = h.expo.delivered().filter((x) => x.data?.message_id === m.id);
    expect(sent.map((x) => x.to)).toEqual(['ExponentPushToken[asa]']);
  });
});
