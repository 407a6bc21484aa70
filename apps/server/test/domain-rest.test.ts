import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { startTestServer, type TestServer, TEST_CLIENT_OPTIONS } from './support/test-server.js';

let t: TestServer;
let server: TestServer['server'];
const users: Record<string, { client: SupabaseClient; id: string }> = {};
let anon: SupabaseClient;
let auctionId: string;
let locationId: string;
let typeIds: string[] = [];

async function signUp(key: string, fullName: string): Promise<void> {
  users[key] = await t.signUp(`${key}@rest.test`, fullName);
}
const sb = (key: string) => users[key]!.client;

beforeAll(async () => {
  // The data interface's rate limits stay off (the test server's default): these files send more than 60 requests
  // a minute from one address.
  t = await startTestServer({ AUTH_RATE_LIMIT_SIGN_UP: '100', WEBHOOK_DISPATCHER_ENABLED: 'false' });
  ({ server } = t);
  anon = createClient(server.url, server.ctx.anonKey, TEST_CLIENT_OPTIONS);
  for (const [k, n] of [
    ['owner', 'Olive Owner'],
    ['admin', 'Adam Admin'],
    ['member', 'Mia Member'],
    ['outsider', 'Otto Outsider'],
  ])
    await signUp(k!, n!);
});
afterAll(async () => {
  await t?.stop();
});

describe('auctions and members', () => {
  it('POST /auctions makes the caller owner; GET lists only own auctions; PATCH needs admin', async () => {
    const { data, error } = await sb('owner')
      .from('auctions')
      .insert({ name: 'REST Auction', slug: 'rest-auction' })
      .select()
      .single();
    expect(error).toBeNull();
    expect(data).toMatchObject({
      name: 'REST Auction',
      slug: 'rest-auction',
      is_active: true,
      subscription_tier: 'free',
      settings: { timezone: 'UTC' },
    });
    auctionId = data!.id;
    const upd = await sb('owner')
      .from('auctions')
      .update({ name: 'REST Auction Co', settings: { timezone: 'America/Chicago' } })
      .eq('id', auctionId)
      .select()
      .single();
    expect(upd.data).toMatchObject({ name: 'REST Auction Co', settings: { timezone: 'America/Chicago' } });
    const one = await sb('owner').from('auctions').select('*, auction_branding(*)').eq('id', auctionId);
    expect(one.data).toHaveLength(1);
    const none = await sb('outsider').from('auctions').select();
    expect(none.data).toEqual([]);
    const dup = await sb('outsider').from('auctions').insert({ name: 'Dup', slug: 'rest-auction' });
    expect(dup.error?.code).toBe('23505');
    expect(dup.status).toBe(409);
    const anonRead = await anon.from('auctions').select();
    expect(anonRead.status).toBe(401);
    expect(anonRead.error?.code).toBe('42501');
  });

  it('invitations through RPCs, then the member list embeds user:users(id,email,full_name)', async () => {
    for (const [key, role] of [
      ['admin', 'admin'],
      ['member', 'team_member'],
    ] as const) {
      const inv = await sb('owner').rpc('invite_user_to_auction', {
        p_auction_id: auctionId,
        p_email: `${key}@rest.test`,
        p_role: role,
      });
      expect(inv.error).toBeNull();
      const acc = await sb(key).rpc('accept_auction_invite', { p_token: inv.data.token });
      expect(acc.data).toMatchObject({ auction_id: auctionId, role });
    }
    const { data } = await sb('member')
      .from('auction_members')
      .select('*, user:users(id,email,full_name)')
      .eq('auction_id', auctionId)
      .order('joined_at');
    expect(data!.map((m) => [m.role, m.user.full_name])).toEqual([
      ['owner', 'Olive Owner'],
      ['admin', 'Adam Admin'],
      ['team_member', 'Mia Member'],
    ]);
    expect(Object.keys(data![0].user).sort()).toEqual(['email', 'full_name', 'id']);
    const denied = await sb('member').rpc('change_member_role', {
      p_auction_id: auctionId,
      p_user_id: users.admin!.id,
      p_new_role: 'team_member',
    });
    expect(denied.status).toBe(403);
    expect(denied.error?.code).toBe('42501');
    const lastOwner = await sb('owner').rpc('remove_auction_member', {
      p_auction_id: auctionId,
      p_user_id: users.owner!.id,
    });
    expect(lastOwner.status).toBe(400);
    expect(lastOwner.error?.code).toBe('P0001');
  });
});

describe('locations and submissions', () => {
  it('admins create locations and types; team members cannot (403)', async () => {
    const loc = await sb('admin')
      .from('locations')
      .insert({
        auction_id: auctionId,
        name: 'North Lot',
        address: '1 River Rd',
        operating_hours_start: '06:00:00',
        operating_hours_end: '18:00:00',
        submission_frequency_minutes: 60,
      })
      .select()
      .single();
    expect(loc.error).toBeNull();
    locationId = loc.data!.id;
    // Team members work at the locations an admin assigns them to.
    const assigned = await sb('admin')
      .from('location_assignments')
      .insert({ location_id: locationId, user_id: users.member!.id })
      .select()
      .single();
    expect(assigned.error).toBeNull();
    expect(assigned.data!.auction_id).toBe(auctionId);
    expect(loc.data).toMatchObject({ operating_hours_start: '06:00:00', is_active: true });
    const denied = await sb('member').from('locations').insert({ auction_id: auctionId, name: 'Sneaky' }).select();
    expect(denied.status).toBe(403);
    expect(denied.error?.code).toBe('42501');
    const types = await sb('admin')
      .from('submission_types')
      .insert([
        { auction_id: auctionId, name: 'Sold' },
        { auction_id: auctionId, name: 'Unsold' },
      ])
      .select();
    typeIds = types.data!.map((t) => t.id);
    const order = await sb('admin')
      .from('location_submission_types')
      .insert([
        { location_id: locationId, submission_type_id: typeIds[1], display_order: 1, is_required: true },
        { location_id: locationId, submission_type_id: typeIds[0], display_order: 2, is_required: false },
      ])
      .select();
    expect(order.error).toBeNull();
    expect(order.data!.every((r) => r.auction_id === auctionId)).toBe(true);
    const ordered = await sb('member').rpc('get_location_submission_types_ordered', { p_location_id: locationId });
    expect(ordered.data).toEqual([
      { id: typeIds[1], type_name: 'Unsold', description: null, display_order: 1, is_required: true },
      { id: typeIds[0], type_name: 'Sold', description: null, display_order: 2, is_required: false },
    ]);
    const list = await sb('member')
      .from('locations')
      .select()
      .eq('auction_id', auctionId)
      .eq('is_active', true)
      .order('name', { ascending: true });
    expect(list.data!.map((l) => l.name)).toEqual(['North Lot']);
    const patched = await sb('admin')
      .from('locations')
      .update({ submission_frequency_minutes: 45 })
      .eq('id', locationId)
      .select()
      .single();
    expect(patched.data!.submission_frequency_minutes).toBe(45);
  });

  it('create_lot_submission_with_entries, then recent_submissions and get_submission_with_entries', async () => {
    const created = await sb('member').rpc('create_lot_submission_with_entries', {
      p_location_id: locationId,
      p_entries: [
        { submission_type_id: typeIds[0], car_count: 12, image_url: 'https://img/1.jpg' },
        { submission_type_id: typeIds[1], car_count: 3 },
      ],
      p_image_url: 'https://img/main.jpg',
    });
    expect(created.error).toBeNull();
    expect(created.data).toMatchObject({
      location_name: 'North Lot',
      submitted_by: 'Mia Member',
      entry_count: 2,
      total_car_count: 15,
      image_url: 'https://img/main.jpg',
    });
    expect(created.data.entries).toEqual([
      { type_name: 'Unsold', car_count: 3, image_url: null },
      { type_name: 'Sold', car_count: 12, image_url: 'https://img/1.jpg' },
    ]);
    const from = new Date(Date.now() - 3_600_000).toISOString();
    const to = new Date(Date.now() + 3_600_000).toISOString();
    const recent = await sb('admin')
      .from('recent_submissions')
      .select('*', { count: 'exact' })
      .eq('auction_id', auctionId)
      .eq('location_id', locationId)
      .gte('submitted_at', from)
      .lte('submitted_at', to)
      .order('submitted_at', { ascending: false })
      .limit(10);
    expect(recent.count).toBe(1);
    expect(recent.data![0]).toMatchObject({ id: created.data.id, total_car_count: 15, entry_count: 2 });
    expect(Object.keys(recent.data![0]).sort()).toEqual([
      'auction_id',
      'entries',
      'entry_count',
      'id',
      'image_url',
      'location_id',
      'location_name',
      'submitted_at',
      'submitted_by',
      'total_car_count',
      'user_id',
    ]);
    const one = await sb('admin').rpc('get_submission_with_entries', { p_submission_id: created.data.id });
    expect(one.data).toEqual(created.data);
    const outsider = await sb('outsider').from('recent_submissions').select().eq('auction_id', auctionId);
    expect(outsider.data).toEqual([]);
    const hidden = await sb('outsider').rpc('get_submission_with_entries', { p_submission_id: created.data.id });
    expect(hidden.status).toBe(404);
    const bad = await sb('member').rpc('create_lot_submission_with_entries', {
      p_location_id: locationId,
      p_entries: [{ submission_type_id: typeIds[0], car_count: -2 }],
    });
    expect(bad.status).toBe(400);
  });
});

describe('inspections', () => {
  it('inspection with defects posted as an array, embedded with category names', async () => {
    const insp = await sb('member')
      .from('quality_inspections')
      .insert({ auction_id: auctionId, location_id: locationId, vin_number: '1HGCM82633A004352', barcode: 'LOT-1' })
      .select()
      .single();
    expect(insp.error).toBeNull();
    const cats = await sb('member').from('defect_categories').select().order('display_order', { ascending: true });
    expect(cats.data!.length).toBeGreaterThanOrEqual(10);
    const defects = await sb('member')
      .from('quality_defects')
      .insert([
        { inspection_id: insp.data!.id, category_id: cats.data![0].id, notes: 'door' },
        { inspection_id: insp.data!.id, category_id: cats.data![1].id, notes: 'hood' },
      ])
      .select();
    expect(defects.data).toHaveLength(2);
    const full = await sb('admin')
      .from('quality_inspections')
      .select('*,quality_defects(*,category:defect_categories(name))')
      .eq('id', insp.data!.id)
      .single();
    expect(full.data!.quality_defects.map((d: any) => [d.notes, d.category.name]).sort()).toEqual(
      [
        ['door', cats.data![0].name],
        ['hood', cats.data![1].name],
      ].sort(),
    );
    const recent = await sb('admin')
      .from('recent_quality_inspections')
      .select()
      .eq('auction_id', auctionId)
      .order('submitted_at', { ascending: false })
      .limit(5);
    expect(recent.data![0]).toMatchObject({
      id: insp.data!.id,
      location_name: 'North Lot',
      inspector_name: 'Mia Member',
      defect_count: 2,
    });
    expect(Object.keys(recent.data![0]).sort()).toEqual([
      'auction_id',
      'barcode',
      'defect_count',
      'id',
      'inspector_name',
      'location_id',
      'location_name',
      'submitted_at',
      'user_id',
      'vin_number',
    ]);
    const badVin = await sb('member')
      .from('quality_inspections')
      .insert({ auction_id: auctionId, location_id: locationId, vin_number: 'OOOOOOOOOOOOOOOOO', barcode: 'x' });
    expect(badVin.status).toBe(400);
    expect(badVin.error?.code).toBe('23514');
  });
});

describe('rock reports', () => {
  it('report, facts, causes, actions, status moves, and the counts in active_problem_reports', async () => {
    const rep = await sb('member')
      .from('problem_reports')
      .insert({
        auction_id: auctionId,
        issue_name: 'Flat tires',
        area: 'Yard',
        location_id: locationId,
        assigned_to: users.admin!.id,
      })
      .select()
      .single();
    expect(rep.data).toMatchObject({ status: 'open', prepared_by: users.member!.id });
    const id = rep.data!.id;
    expect(
      (
        await sb('member')
          .from('problem_facts')
          .insert({
            problem_id: id,
            who: 'crew',
            what: 'tires',
            where_field: 'South',
            when_field: 'Mon',
            how_many: '4',
            how_much: '$400',
          })
          .select()
      ).error,
    ).toBeNull();
    expect(
      (
        await sb('member')
          .from('potential_causes')
          .insert([
            { problem_id: id, cause_text: 'nails', order_number: 1 },
            { problem_id: id, cause_text: 'debris', order_number: 2 },
          ])
          .select()
      ).data,
    ).toHaveLength(2);
    const act = await sb('member')
      .from('problem_actions')
      .insert({
        problem_id: id,
        issue: 'debris',
        countermeasure: 'sweep',
        responsible_person: 'Adam',
        completion_date: '2030-01-31',
        status: 'pending',
      })
      .select()
      .single();
    await sb('admin').from('problem_actions').update({ status: 'complete' }).eq('id', act.data!.id);
    await sb('member').from('problem_actions').insert({
      problem_id: id,
      issue: 'signs',
      countermeasure: 'post signs',
      responsible_person: 'Mia',
      completion_date: '2030-02-15',
      status: 'pending',
    });
    const moved = await sb('admin')
      .from('problem_reports')
      .update({ status: 'in_progress' })
      .eq('id', id)
      .select()
      .single();
    expect(moved.data!.status).toBe('in_progress');
    const active = await sb('member')
      .from('active_problem_reports')
      .select()
      .eq('auction_id', auctionId)
      .neq('status', 'closed')
      .order('submitted_at', { ascending: false });
    expect(active.data).toEqual([
      expect.objectContaining({
        id,
        issue_name: 'Flat tires',
        area: 'Yard',
        location_name: 'North Lot',
        status: 'in_progress',
        prepared_by_name: 'Mia Member',
        assigned_to_name: 'Adam Admin',
        action_count: 2,
        completed_action_count: 1,
      }),
    ]);
    expect(Object.keys(active.data![0]).sort()).toEqual([
      'action_count',
      'area',
      'assigned_to_name',
      'auction_id',
      'completed_action_count',
      'id',
      'issue_name',
      'location_name',
      'prepared_by_name',
      'status',
      'submitted_at',
    ]);
    const closed = await sb('member')
      .from('problem_reports')
      .update({ status: 'closed' })
      .eq('id', id)
      .select()
      .single();
    expect(closed.data!.status).toBe('closed');
    const invalid = await sb('member').from('problem_reports').update({ status: 'in_progress' }).eq('id', id).select();
    expect(invalid.status).toBe(400);
    expect(invalid.error?.code).toBe('P0001');
    const after = await sb('member')
      .from('active_problem_reports')
      .select()
      .eq('auction_id', auctionId)
      .neq('status', 'closed');
    expect(after.data).toEqual([]);
  });
});

describe('chat', () => {
  it('channels, messages with threads, edits, reactions, reply counts and unread counts', async () => {
    const ch = await sb('admin')
      .from('channels')
      .insert({ auction_id: auctionId, name: 'general', description: 'All hands', location_id: locationId })
      .select()
      .single();
    expect(ch.error).toBeNull();
    const memberChannel = await sb('member')
      .from('channels')
      .insert({ auction_id: auctionId, name: 'mine', description: 'x' })
      .select();
    expect(memberChannel.status).toBe(403);
    const list = await sb('member')
      .from('channels')
      .select()
      .eq('auction_id', auctionId)
      .eq('is_archived', false)
      .order('name', { ascending: true });
    expect(list.data!.map((c) => c.name)).toEqual(['general']);
    const top = await sb('admin')
      .from('messages')
      .insert({
        auction_id: auctionId,
        channel_id: ch.data!.id,
        content: 'Trucks at 10, @Mia Member',
        message_type: 'text',
      })
      .select()
      .single();
    expect(top.data!.mentions).toEqual([users.member!.id]);
    await sb('owner').from('messages').insert({
      auction_id: auctionId,
      channel_id: ch.data!.id,
      content: 'ok',
      message_type: 'text',
      parent_message_id: top.data!.id,
    });
    const edit = await sb('admin')
      .from('messages')
      .update({ content: 'Trucks at 11', is_edited: true })
      .eq('id', top.data!.id)
      .select()
      .single();
    expect(edit.data).toMatchObject({ content: 'Trucks at 11', is_edited: true });
    const hijack = await sb('member').from('messages').update({ content: 'mine now' }).eq('id', top.data!.id).select();
    expect(hijack.data).toEqual([]);
    const r = await sb('member')
      .from('message_reactions')
      .insert({ auction_id: auctionId, message_id: top.data!.id, emoji: '👍' })
      .select()
      .single();
    expect(r.data!.user_id).toBe(users.member!.id);
    const dup = await sb('member')
      .from('message_reactions')
      .insert({ auction_id: auctionId, message_id: top.data!.id, emoji: '👍' });
    expect(dup.error?.code).toBe('23505');
    const msgs = await sb('member')
      .from('messages_with_reply_count')
      .select()
      .eq('channel_id', ch.data!.id)
      .is('parent_message_id', null)
      .order('created_at', { ascending: false })
      .limit(20);
    expect(msgs.data!.map((m) => [m.content, m.reply_count])).toEqual([['Trucks at 11', 1]]);
    expect(msgs.data![0].last_reply_at).not.toBeNull();
    // The view keeps the messages FK, so the sender embeds as on the table (hinted: message_reactions is a second
    // path).
    const withSender = await sb('member')
      .from('messages_with_reply_count')
      .select('id, reply_count, user:users!messages_user_id_fkey(id, full_name)')
      .eq('id', top.data!.id)
      .single();
    expect(withSender.error).toBeNull();
    expect(withSender.data).toMatchObject({ reply_count: 1, user: { id: users.admin!.id, full_name: 'Adam Admin' } });
    const unread = await sb('member').rpc('get_total_unread_count', { p_auction_id: auctionId });
    expect(unread.data).toBe(2);
    const read = await sb('member').rpc('mark_channel_as_read', { p_channel_id: ch.data!.id });
    expect(read.data.channel_id).toBe(ch.data!.id);
    expect((await sb('member').rpc('get_total_unread_count', { p_auction_id: auctionId })).data).toBe(0);
  });
});

describe('analytics', () => {
  it('location stats, dashboard stats, defect trends and pending submissions', async () => {
    const start = new Date(Date.now() - 86_400_000).toISOString();
    const end = new Date(Date.now() + 60_000).toISOString();
    const stats = await sb('member').rpc('get_location_stats', {
      p_location_id: locationId,
      p_start_date: start,
      p_end_date: end,
    });
    expect(stats.data).toMatchObject({ total_submissions: 1, total_car_count: 15, average_car_count: 15 });
    expect(stats.data.by_type.map((t: any) => [t.type_name, t.count])).toEqual([
      ['Sold', 12],
      ['Unsold', 3],
    ]);
    const all = await sb('admin').rpc('get_all_locations_stats', { p_start_date: start, p_end_date: end });
    expect(all.data).toEqual([
      expect.objectContaining({ location_name: 'North Lot', total_submissions: 1, total_car_count: 15 }),
    ]);
    const trends = await sb('admin').rpc('get_defect_trends', {
      p_start_date: start,
      p_end_date: end,
      p_location_id: null,
    });
    expect(trends.data.reduce((n: number, r: any) => n + r.defect_count, 0)).toBe(2);
    const pending = await sb('admin').rpc('get_pending_submissions');
    expect(pending.error).toBeNull();
    expect(Array.isArray(pending.data)).toBe(true);
    const outsider = await sb('outsider').rpc('get_location_stats', {
      p_location_id: locationId,
      p_start_date: start,
      p_end_date: end,
    });
    expect(outsider.status).toBe(403);
  });
});
