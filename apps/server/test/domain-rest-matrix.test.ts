import { afterAll, beforeAll, expect, it } from 'vitest';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import type { TestDatabase } from '@auction-ops/database/testing';
import { startTestServer, type TestServer, TEST_CLIENT_OPTIONS } from './support/test-server.js';

const ROLES = ['owner', 'admin', 'member', 'other', 'anon', 'super'] as const;
type Role = (typeof ROLES)[number];

let t: TestServer;
let db: TestDatabase;
let server: TestServer['server'];
const clients = {} as Record<Role, SupabaseClient>;
const ids: Record<string, string> = {};

const signedIn = (key: string) => t.signUp(`${key}@matrix.test`, key);

beforeAll(async () => {
  // The data interface's rate limits stay off (the test server's default): these files send more than 60 requests
  // a minute from one address.
  t = await startTestServer({ AUTH_RATE_LIMIT_SIGN_UP: '100', WEBHOOK_DISPATCHER_ENABLED: 'false' });
  ({ db, server } = t);
  for (const role of ROLES) {
    if (role === 'anon') {
      clients.anon = createClient(server.url, server.ctx.anonKey, TEST_CLIENT_OPTIONS);
      continue;
    }
    const u = await signedIn(role);
    clients[role] = u.client;
    ids[role] = u.id;
  }
  await db.sql`insert into public.super_admins (user_id) values (${ids.super!})`;
  const a = await clients.owner.from('auctions').insert({ name: 'A', slug: 'matrix-a' }).select().single();
  ids.auction = a.data!.id;
  await clients.other.from('auctions').insert({ name: 'B', slug: 'matrix-b' });
  for (const [role, r] of [
    ['admin', 'admin'],
    ['member', 'team_member'],
  ] as const) {
    const inv = await clients.owner.rpc('invite_user_to_auction', {
      p_auction_id: ids.auction,
      p_email: `${role}@matrix.test`,
      p_role: r,
    });
    await clients[role].rpc('accept_auction_invite', { p_token: inv.data.token });
  }
  const loc = await clients.admin.from('locations').insert({ auction_id: ids.auction, name: 'Lot' }).select().single();
  ids.location = loc.data!.id;
  const memberId = (await clients.member.auth.getUser()).data.user!.id;
  await clients.admin.from('location_assignments').insert({ location_id: ids.location, user_id: memberId });
  const unassigned = await clients.admin
    .from('locations')
    .insert({ auction_id: ids.auction, name: 'Unassigned lot' })
    .select()
    .single();
  ids.unassigned = unassigned.data!.id;
  const type = await clients.admin
    .from('submission_types')
    .insert({ auction_id: ids.auction, name: 'Sold' })
    .select()
    .single();
  await clients.admin
    .from('location_submission_types')
    .insert({ location_id: ids.location, submission_type_id: type.data!.id, display_order: 1 });
  await clients.member.rpc('create_lot_submission_with_entries', {
    p_location_id: ids.location,
    p_entries: [{ submission_type_id: type.data!.id, car_count: 4 }],
  });
  await clients.member
    .from('quality_inspections')
    .insert({ auction_id: ids.auction, location_id: ids.location, vin_number: '1HGCM82633A004352', barcode: 'B' });
  await clients.member
    .from('problem_reports')
    .insert({ auction_id: ids.auction, issue_name: 'Gate', area: 'Yard', location_id: ids.location });
  const ch = await clients.admin
    .from('channels')
    .insert({ auction_id: ids.auction, name: 'general', description: 'all' })
    .select()
    .single();
  ids.channel = ch.data!.id;
  await clients.member
    .from('messages')
    .insert({ auction_id: ids.auction, channel_id: ids.channel, content: 'hi', message_type: 'text' });
});
afterAll(async () => {
  await t?.stop();
});

type Result = { data: unknown; status: number; error: unknown };
type Probe = (c: SupabaseClient, role: Role) => PromiseLike<Result>;
const read =
  (table: string, column = 'auction_id', key = 'auction'): Probe =>
  (c) =>
    c.from(table).select('*').eq(column, ids[key]!);

const cases: [string, Probe, string][] = [
  ['GET auctions', read('auctions', 'id'), 'rows rows rows none 401 rows'],
  ['GET auction_members', read('auction_members'), 'rows rows rows none 401 rows'],
  ['GET locations', read('locations'), 'rows rows rows none 401 rows'],
  ['GET an unassigned location', read('locations', 'id', 'unassigned'), 'rows rows none none 401 rows'],
  ['GET location_assignments', read('location_assignments'), 'rows rows rows none 401 rows'],
  ['GET recent_submissions', read('recent_submissions'), 'rows rows rows none 401 rows'],
  ['GET recent_quality_inspections', read('recent_quality_inspections'), 'rows rows rows none 401 rows'],
  ['GET active_problem_reports', read('active_problem_reports'), 'rows rows rows none 401 rows'],
  ['GET channels', read('channels'), 'rows rows rows none 401 rows'],
  [
    'GET messages_with_reply_count',
    read('messages_with_reply_count', 'channel_id', 'channel'),
    'rows rows rows none 401 rows',
  ],
  ['GET event_outbox', read('event_outbox'), 'rows rows none none 401 rows'],
  [
    'POST locations',
    (c, r) =>
      c
        .from('locations')
        .insert({ auction_id: ids.auction, name: `L-${r}` })
        .select(),
    '201 201 403 403 401 201',
  ],
  [
    'POST quality_inspections',
    (c) =>
      c
        .from('quality_inspections')
        .insert({ auction_id: ids.auction, location_id: ids.location, vin_number: '1HGCM82633A004353', barcode: 'X' })
        .select(),
    '201 201 201 403 401 201',
  ],
  [
    'POST problem_reports',
    (c) =>
      c
        .from('problem_reports')
        .insert({ auction_id: ids.auction, issue_name: 'Leak', area: 'Wash', location_id: ids.location })
        .select(),
    '201 201 201 403 401 201',
  ],
  [
    'POST channels',
    (c, r) =>
      c
        .from('channels')
        .insert({ auction_id: ids.auction, name: `c-${r}`, description: 'd' })
        .select(),
    '201 201 403 403 401 201',
  ],
  [
    'POST messages',
    (c) =>
      c
        .from('messages')
        .insert({ auction_id: ids.auction, channel_id: ids.channel, content: 'x', message_type: 'text' })
        .select(),
    '201 201 201 403 401 201',
  ],
  [
    'PATCH auctions',
    (c) =>
      c
        .from('auctions')
        .update({ settings: { timezone: 'UTC' } })
        .eq('id', ids.auction)
        .select(),
    'rows rows none none 401 rows',
  ],
  [
    'RPC invite_user_to_auction',
    (c, r) =>
      c.rpc('invite_user_to_auction', {
        p_auction_id: ids.auction,
        p_email: `new-${r}@matrix.test`,
        p_role: 'team_member',
      }),
    '200 200 403 403 401 200',
  ],
  [
    'RPC get_location_stats',
    (c) =>
      c.rpc('get_location_stats', {
        p_location_id: ids.location,
        p_start_date: '2000-01-01T00:00:00Z',
        p_end_date: '2100-01-01T00:00:00Z',
      }),
    '200 200 200 403 401 200',
  ],
];

function outcome(r: Result): string {
  if (r.status === 200 && Array.isArray(r.data)) return r.data.length > 0 ? 'rows' : 'none';
  return String(r.status);
}

it.each(cases)('%s', async (_name, probe, expected) => {
  const actual: string[] = [];
  for (const role of ROLES) {
    const r = await probe(clients[role], role);
    if (r.status === 403) expect((r.error as { code?: string }).code).toBe('42501');
    actual.push(`${role}:${outcome(r)}`);
  }
  expect(actual).toEqual(expected.split(' ').map((o, i) => `${ROLES[i]}:${o}`));
});
