// Issue 52: a deleted auction (public.auctions.deleted_at set, domain/0031) serves nothing to anyone but the
// server's own maintenance. One auction A with a row in every table, a dataset with a public report, a folder
// object, a webhook endpoint and a push token is deleted by its owner; then every path a client reaches is walked
// as its owner, admin, team member, a super admin and the anon key (and the service role where it acts for
// someone): the data interface's relations and RPCs, the nine functions, storage, realtime, webhooks and pushes.
// Auction B, live, is the control that each path still works.
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSse } from './functions-reporting.fixture.js';
import { realtimeClient, subscribed } from './realtime.fixture.js';
import { type LoopbackServer, startLoopbackServer, until } from './support/loopback.js';
import { startTestServer, TEST_CLIENT_OPTIONS, TEST_PASSWORD, type TestServer } from './support/test-server.js';

const ROLES = ['owner', 'admin', 'member', 'super', 'anon'] as const;
type Role = (typeof ROLES)[number];
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);

let t: TestServer;
let receiver: LoopbackServer;
const received: Array<{ event: string; auction_id: string }> = [];
const clients = {} as Record<Role | 'invitee' | 'service', SupabaseClient>;
const tokens = {} as Record<Role | 'invitee', string>;
const ids: Record<string, string> = {};

function must<T>(r: { data: T; error: unknown }): NonNullable<T> {
  if (r.error) throw new Error(`fixture failed: ${JSON.stringify(r.error)}`);
  return r.data as NonNullable<T>;
}
const insertOne = async (client: SupabaseClient, table: string, row: Record<string, unknown>) =>
  must(await client.from(table).insert(row).select().single());

/** POST /functions/v1/<name> as `role` (the anon key alone for anon, the service key for service). */
function callFunction(name: string, body: unknown, role: Role | 'service' | 'invitee'): Promise<Response> {
  const key = role === 'service' ? t.serviceRoleKey : t.anonKey;
  const bearer = role === 'service' ? t.serviceRoleKey : role === 'anon' ? t.anonKey : tokens[role];
  return fetch(`${t.url}/functions/v1/${name}`, {
    method: 'POST',
    headers: { apikey: key, authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function importDataset(auctionId: string, name: string): Promise<string> {
  const res = await callFunction(
    'import-csv',
    { auction_id: auctionId, name, csv: 'lot,price\n1,10\n2,20\n' },
    'owner',
  );
  const events = await readSse(res.body);
  const complete = events.find((e) => e.event === 'complete');
  if (!complete) throw new Error(`import failed: ${JSON.stringify(events.at(-1))}`);
  return complete.data.dataset_id as string;
}

beforeAll(async () => {
  receiver = await startLoopbackServer((_req, body, res) => {
    const payload = JSON.parse(body) as { event: string; auction_id: string };
    received.push({ event: payload.event, auction_id: payload.auction_id });
    res.writeHead(200).end('ok');
  });
  t = await startTestServer({
    AUTH_RATE_LIMIT_SIGN_UP: '100',
    WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_POLL_INTERVAL_MS: '100',
    PUSH_PROVIDER: 'outbox',
    PENDING_CHECK_ENABLED: 'false',
  });
  for (const role of [...ROLES, 'invitee'] as const) {
    if (role === 'anon') {
      clients.anon = t.client();
      continue;
    }
    const u = await t.signUp(`${role}@gone.test`, role);
    clients[role] = u.client;
    tokens[role] = u.token;
    ids[role] = u.id;
  }
  clients.service = createClient(t.url, t.serviceRoleKey, TEST_CLIENT_OPTIONS);
  await t.db.sql`insert into public.super_admins (user_id) values (${ids.super!})`;
  ids.auction = (await insertOne(clients.owner, 'auctions', { name: 'A', slug: 'gone-a' })).id;
  ids.live = (await insertOne(clients.owner, 'auctions', { name: 'B', slug: 'live-b' })).id;
  for (const [role, r] of [
    ['admin', 'admin'],
    ['member', 'team_member'],
  ] as const) {
    const inv = must(
      await clients.owner.rpc('invite_user_to_auction', {
        p_auction_id: ids.auction,
        p_email: `${role}@gone.test`,
        p_role: r,
      }),
    );
    must(await clients[role].rpc('accept_auction_invite', { p_token: inv.token }));
  }
  await t.db
    .sql`insert into public.auction_members (auction_id, user_id, role) values (${ids.live}, ${ids.member!}, 'team_member')`;
  // An invitation still open when the auction is deleted.
  ids.openInvite = must(
    await clients.owner.rpc('invite_user_to_auction', {
      p_auction_id: ids.auction,
      p_email: 'invitee@gone.test',
      p_role: 'team_member',
    }),
  ).token;
  ids.location = (await insertOne(clients.admin, 'locations', { auction_id: ids.auction, name: 'Lot' })).id;
  must(await clients.admin.from('location_assignments').insert({ location_id: ids.location, user_id: ids.member }));
  const type = await insertOne(clients.admin, 'submission_types', { auction_id: ids.auction, name: 'Sold' });
  must(
    await clients.admin
      .from('location_submission_types')
      .insert({ location_id: ids.location, submission_type_id: type.id, display_order: 1 }),
  );
  ids.submission = must(
    await clients.member.rpc('create_lot_submission_with_entries', {
      p_location_id: ids.location,
      p_entries: [{ submission_type_id: type.id, car_count: 4 }],
    }),
  ).id;
  ids.inspection = (
    await insertOne(clients.member, 'quality_inspections', {
      auction_id: ids.auction,
      location_id: ids.location,
      vin_number: '1HGCM82633A004352',
      barcode: 'B',
    })
  ).id;
  const [dent] = await t.db.sql`select id from public.defect_categories where auction_id is null and name = 'Dent'`;
  must(
    await clients.member
      .from('quality_defects')
      .insert({ inspection_id: ids.inspection, category_id: dent!.id, notes: 'door' }),
  );
  must(await clients.admin.from('defect_categories').insert({ auction_id: ids.auction, name: 'Hail' }));
  ids.problem = (
    await insertOne(clients.member, 'problem_reports', {
      auction_id: ids.auction,
      issue_name: 'Gate',
      area: 'Yard',
      location_id: ids.location,
    })
  ).id;
  must(await clients.member.from('problem_facts').insert({ problem_id: ids.problem, who: 'crew' }));
  must(await clients.member.from('potential_causes').insert({ problem_id: ids.problem, cause_text: 'nails' }));
  must(await clients.member.from('problem_actions').insert({ problem_id: ids.problem, issue: 'sweep' }));
  ids.channel = (await insertOne(clients.admin, 'channels', { auction_id: ids.auction, name: 'general' })).id;
  ids.liveChannel = (await insertOne(clients.owner, 'channels', { auction_id: ids.live, name: 'general' })).id;
  ids.message = (
    await insertOne(clients.member, 'messages', { auction_id: ids.auction, channel_id: ids.channel, content: 'hi' })
  ).id;
  must(await clients.member.from('message_reactions').insert({ message_id: ids.message, emoji: '👍' }));
  must(await clients.owner.rpc('mark_channel_as_read', { p_channel_id: ids.channel }));
  must(
    await clients.owner
      .from('channel_notification_preferences')
      .insert({ channel_id: ids.channel, preference: 'mentions' }),
  );
  must(await clients.member.from('user_push_tokens').insert({ token: 'ExponentPushToken[gone]', platform: 'ios' }));
  must(await clients.admin.from('auction_branding').insert({ auction_id: ids.auction, app_name: 'A app' }));
  ids.dataset = await importDataset(ids.auction, 'Sales');
  ids.liveDataset = await importDataset(ids.live, 'Live sales');
  for (const [key, auction, dataset] of [
    ['report', ids.auction, ids.dataset],
    ['liveReport', ids.live, ids.liveDataset],
  ] as const)
    ids[key] = (
      await insertOne(clients.owner, 'saved_reports', {
        auction_id: auction,
        dataset_id: dataset,
        name: 'All',
        sql: 'select * from dataset order by lot',
        is_public: true,
      })
    ).id;
  must(
    await clients.owner.from('query_audit_log').insert({
      auction_id: ids.auction,
      dataset_id: ids.dataset,
      natural_language_query: 'all lots',
      sql: 'select 1',
    }),
  );
  ids.conversation = (
    await insertOne(clients.owner, 'query_conversations', { auction_id: ids.auction, dataset_id: ids.dataset })
  ).id;
  must(
    await clients.owner
      .from('query_conversation_messages')
      .insert({ conversation_id: ids.conversation, role: 'user', content: 'all lots?' }),
  );
  for (const [key, auction] of [
    ['endpoint', ids.auction],
    ['liveEndpoint', ids.live],
  ] as const)
    ids[key] = (
      await insertOne(clients.owner, 'webhook_endpoints', {
        auction_id: auction,
        url: `${receiver.url}/hook`,
        events: ['message.created', 'auction.deleted', 'auction.undeleted'],
        secret: 'gone-secret-0123456789',
      })
    ).id;
  ids.delivery = must(
    await clients.owner.rpc('test_webhook', { endpoint_id: ids.endpoint, event_type: 'message.created' }),
  ).delivery_id;
  await until(async () => {
    const [d] = await t.db.sql`select status from public.webhook_deliveries where id = ${ids.delivery!}`;
    return d?.status === 'delivered';
  }, 'the test delivery');
  // An object in the auction's folder (only the service role and super admins write there).
  ids.object = `${ids.auction}/plan.png`;
  must(await clients.service.storage.from('lot-images').upload(ids.object, PNG, { contentType: 'image/png' }));
  // Sanity of the arrangement: the public report runs for the bare API key while the auction lives.
  const before = await callFunction('execute-query', { report_id: ids.report }, 'anon');
  expect(before.status).toBe(200);
  expect(((await before.json()) as { row_count: number }).row_count).toBe(2);

  must(await clients.owner.from('auctions').delete().eq('id', ids.auction));
  const [row] = await t.db.sql`select deleted_at from public.auctions where id = ${ids.auction!}`;
  expect(row!.deleted_at).not.toBeNull();
}, 120_000);

afterAll(async () => {
  await t?.stop();
  await receiver?.close();
});

type Result = { data: unknown; status: number; error: unknown };

/** 'rows' or 'none' for a list, 'true'/'false'/'null' for a scalar, else the HTTP status. */
function outcome(r: Result): string {
  if (r.status >= 200 && r.status < 300) {
    if (Array.isArray(r.data)) return r.data.length > 0 ? 'rows' : 'none';
    if (r.data === null || typeof r.data === 'boolean' || typeof r.data === 'number') return String(r.data);
    if (r.status === 204) return 'none';
    return 'value';
  }
  return String(r.status);
}

async function walk(probe: (c: SupabaseClient, role: Role) => PromiseLike<Result>, expected: string) {
  const actual: string[] = [];
  for (const role of ROLES) actual.push(`${role}:${outcome(await probe(clients[role], role))}`);
  expect(actual).toEqual(expected.split(' ').map((o, i) => `${ROLES[i]}:${o}`));
}

/**
 * Every relation of schema public, filtered to auction A's side. Outcomes per owner, admin, member, super admin,
 * anon: 'none' is the contract's "not visible" for a read. Rows that are not the auction's (the catalogue, the
 * caller's own user row, push tokens, e-mail log) are read as they always are.
 */
const reads: Array<[relation: string, column: string, key: string, expected: string, select?: string]> = [
  ['auctions', 'id', 'auction', 'none none none none 401'],
  ['auction_members', 'auction_id', 'auction', 'none none none none 401'],
  ['auction_branding', 'auction_id', 'auction', 'none none none none 401'],
  ['auction_invitations', 'auction_id', 'auction', 'none none none none 401', 'id,email,role'],
  ['users', 'id', 'admin', 'none rows none rows 401'],
  ['super_admins', 'user_id', 'super', 'none none none rows 401'],
  ['event_outbox', 'auction_id', 'auction', 'none none none none 401'],
  ['event_types', 'name', 'eventType', 'rows rows rows rows rows'],
  ['locations', 'auction_id', 'auction', 'none none none none 401'],
  ['location_assignments', 'auction_id', 'auction', 'none none none none 401'],
  ['submission_types', 'auction_id', 'auction', 'none none none none 401'],
  ['location_submission_types', 'auction_id', 'auction', 'none none none none 401'],
  ['lot_submissions', 'auction_id', 'auction', 'none none none none 401'],
  ['lot_submission_entries', 'auction_id', 'auction', 'none none none none 401'],
  ['recent_submissions', 'auction_id', 'auction', 'none none none none 401'],
  ['quality_inspections', 'auction_id', 'auction', 'none none none none 401'],
  ['quality_defects', 'auction_id', 'auction', 'none none none none 401'],
  ['recent_quality_inspections', 'auction_id', 'auction', 'none none none none 401'],
  ['defect_categories', 'auction_id', 'auction', 'none none none none 401'],
  ['problem_reports', 'auction_id', 'auction', 'none none none none 401'],
  ['problem_facts', 'auction_id', 'auction', 'none none none none 401'],
  ['potential_causes', 'auction_id', 'auction', 'none none none none 401'],
  ['problem_actions', 'auction_id', 'auction', 'none none none none 401'],
  ['active_problem_reports', 'auction_id', 'auction', 'none none none none 401'],
  ['channels', 'auction_id', 'auction', 'none none none none 401'],
  ['messages', 'auction_id', 'auction', 'none none none none 401'],
  ['messages_with_reply_count', 'channel_id', 'channel', 'none none none none 401'],
  ['message_reactions', 'auction_id', 'auction', 'none none none none 401'],
  ['channel_read_state', 'auction_id', 'auction', 'none none none none 401'],
  ['channel_notification_preferences', 'auction_id', 'auction', 'none none none none 401'],
  ['datasets', 'auction_id', 'auction', 'none none none none 401'],
  ['saved_reports', 'auction_id', 'auction', 'none none none none 401'],
  ['query_audit_log', 'auction_id', 'auction', 'none none none none 401'],
  ['query_conversations', 'auction_id', 'auction', 'none none none none 401'],
  ['query_conversation_messages', 'conversation_id', 'conversation', 'none none none none 401'],
  ['email_log', 'user_id', 'owner', 'none none none none 401'],
  ['user_push_tokens', 'user_id', 'member', 'none none rows none 401'],
  ['webhook_endpoints', 'auction_id', 'auction', 'none none none none 401'],
  ['webhook_deliveries', 'auction_id', 'auction', 'none none none none 401'],
  ['webhook_delivery_attempts', 'auction_id', 'auction', 'none none none none 401'],
];

describe('the data interface', () => {
  beforeAll(() => {
    ids.eventType = 'auction.deleted';
  });

  it.each(reads)('GET %s?%s=eq.<%s>', async (relation, column, key, expected, select = '*') => {
    await walk((c) => c.from(relation).select(select).eq(column, ids[key]!), expected);
  });

  it('reads every table and view of schema public', async () => {
    const relations = await t.db.sql<{ relname: string }[]>`
      select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace
       where n.nspname = 'public' and c.relkind in ('r', 'v', 'm') order by 1`;
    const read = new Set(reads.map(([relation]) => relation));
    expect(relations.map((r) => r.relname).filter((name) => !read.has(name))).toEqual([]);
  });

  it('the service role still reads it (its own maintenance: the console, the purge)', async () => {
    expect(must(await clients.service.from('messages').select('id').eq('auction_id', ids.auction!))).toHaveLength(1);
  });

  it('refuses writes as the data interface refuses any invisible row', async () => {
    await walk(
      (c) => c.from('messages').insert({ auction_id: ids.auction, channel_id: ids.channel, content: 'x' }).select(),
      '403 403 403 403 401',
    );
    await walk(
      (c) => c.from('message_reactions').delete().eq('message_id', ids.message!).select(),
      'none none none none 401',
    );
    await walk(
      (c) =>
        c
          .from('channel_notification_preferences')
          .update({ preference: 'all' })
          .eq('auction_id', ids.auction!)
          .select(),
      'none none none none 401',
    );
    const [kept] = await t.db.sql`select
      (select count(*) from public.message_reactions where message_id = ${ids.message!})::int as reactions,
      (select preference from public.channel_notification_preferences where channel_id = ${ids.channel!}) as pref`;
    expect(kept).toEqual({ reactions: 1, pref: 'mentions' });
  });
});

const dates = { p_start_date: '2000-01-01T00:00:00Z', p_end_date: '2100-01-01T00:00:00Z' };
/** Only A's side of an answer that may hold other auctions' rows. */
const onlyA = (key: string, field: string) => (r: Result) => ({
  ...r,
  data: Array.isArray(r.data) ? r.data.filter((x) => (x as Record<string, unknown>)[field] === ids[key]) : r.data,
});

/** Every RPC that takes an auction or one of its rows: refused, empty, false or null for a deleted auction. */
const rpcs: Array<[name: string, args: () => Record<string, unknown>, expected: string, view?: (r: Result) => Result]> =
  [
    ['get_user_auction_role', () => ({ p_auction_id: ids.auction }), 'null null null null null'],
    ['is_auction_member', () => ({ p_auction_id: ids.auction }), 'false false false false false'],
    ['is_auction_admin_or_above', () => ({ p_auction_id: ids.auction }), 'false false false false false'],
    ['can_write_submission', () => ({ p_submission_id: ids.submission }), 'false false false false false'],
    ['can_write_inspection', () => ({ p_inspection_id: ids.inspection }), 'false false false false false'],
    ['can_write_problem', () => ({ p_problem_id: ids.problem }), 'false false false false false'],
    ['invite_user_to_auction', () => ({ p_auction_id: ids.auction, p_email: 'x@gone.test' }), '403 403 403 403 401'],
    [
      'change_member_role',
      () => ({ p_auction_id: ids.auction, p_user_id: ids.member, p_new_role: 'admin' }),
      '403 403 403 403 401',
    ],
    ['remove_auction_member', () => ({ p_auction_id: ids.auction, p_user_id: ids.member }), '403 403 403 403 401'],
    [
      'transfer_auction_ownership',
      () => ({ p_auction_id: ids.auction, p_new_owner_id: ids.admin }),
      '403 403 403 403 401',
    ],
    ['test_webhook', () => ({ endpoint_id: ids.endpoint, event_type: 'auction.deleted' }), '500 500 500 500 401'],
    ['replay_webhook_delivery', () => ({ delivery_id: ids.delivery }), '500 500 500 500 401'],
    ['retry_webhook_delivery_now', () => ({ delivery_id: ids.delivery }), '500 500 500 500 401'],
    [
      'replay_failed_webhook_deliveries',
      () => ({ endpoint_id: ids.endpoint, since: '2000-01-01T00:00:00Z' }),
      '500 500 500 500 401',
    ],
    ['get_location_stats', () => ({ p_location_id: ids.location, ...dates }), '403 403 403 403 401'],
    ['get_all_locations_stats', () => dates, 'none none none none 401', onlyA('location', 'location_id')],
    ['get_defect_trends', () => ({ ...dates, p_location_id: ids.location }), 'none none none none 401'],
    ['get_location_submission_types_ordered', () => ({ p_location_id: ids.location }), 'none none none none 401'],
    ['get_submission_with_entries', () => ({ p_submission_id: ids.submission }), '404 404 404 404 401'],
    ['get_pending_submissions', () => ({}), 'none none none none 401', onlyA('location', 'location_id')],
    ['get_unread_counts', () => ({ p_auction_id: ids.auction }), 'none none none none 401'],
    ['get_total_unread_count', () => ({ p_auction_id: ids.auction }), '0 0 0 0 401'],
    ['auction_timezone', () => ({ p_auction_id: ids.auction }), 'null null null null 401'],
    ['members_can_create_channels', () => ({ p_auction_id: ids.auction }), 'null null null null 401'],
    ['channel_is_open', () => ({ p_channel_id: ids.channel }), 'false false false false 401'],
    ['mark_channel_as_read', () => ({ p_channel_id: ids.channel }), '403 403 403 403 401'],
    [
      'create_lot_submission_with_entries',
      () => ({ p_location_id: ids.location, p_entries: [] }),
      '403 403 403 403 401',
    ],
  ];

/** Functions of schema public with a uuid argument that are not about one auction, or are the deletion's own. */
const notProbed = new Set([
  // The deletion's own: undo, purge now, the pending-deletion list, the mark.
  'delete_auction',
  'restore_deleted_auction',
  'can_undelete_auction',
  'purge_deleted_auction_now',
  // Users, not auctions.
  'admin_confirm_user_email',
  'admin_delete_user_factor',
  'admin_revoke_user_sessions',
  'admin_set_user_banned',
  'admin_user_factors',
  'admin_user_sessions',
  'anonymize_user',
  'user_display_name',
  'user_ref',
  // Executable by no request role.
  'location_recipients',
]);

describe('RPCs', () => {
  it.each(rpcs)('%s', async (name, args, expected, view = (r) => r) => {
    await walk(async (c) => view(await c.rpc(name, args())), expected);
  });

  it('probes every RPC with a uuid argument', async () => {
    const fns = await t.db.sql<{ name: string }[]>`
      select distinct p.proname as name from pg_proc p join pg_namespace n on n.oid = p.pronamespace
       where n.nspname = 'public' and 'uuid'::regtype = any (p.proargtypes::regtype[])`;
    const probed = new Set(rpcs.map(([name]) => name));
    expect(
      fns
        .map((f) => f.name)
        .filter((n) => !probed.has(n) && !notProbed.has(n))
        .sort(),
    ).toEqual([]);
  });

  it('an invitation to a deleted auction cannot be accepted', async () => {
    const r = await clients.invitee.rpc('accept_auction_invite', { p_token: ids.openInvite });
    expect(r.error).not.toBeNull();
    const [m] = await t.db.sql`select 1 from public.auction_members where user_id = ${ids.invitee!}`;
    expect(m).toBeUndefined();
  });
});

describe('functions', () => {
  const cases: Array<[name: string, body: () => unknown, role: Role | 'service', status: number]> = [
    // Finding 5: the public report ran as the service role for the bare API key.
    ['execute-query', () => ({ report_id: ids.report }), 'anon', 401],
    ['execute-query', () => ({ report_id: ids.report }), 'member', 404],
    ['execute-query', () => ({ report_id: ids.report }), 'super', 404],
    ['execute-query', () => ({ report_id: ids.report }), 'service', 404],
    ['execute-query', () => ({ dataset_id: ids.dataset, sql: 'select * from dataset' }), 'member', 404],
    ['execute-query', () => ({ dataset_id: ids.dataset, sql: 'select * from dataset' }), 'super', 404],
    ['execute-query', () => ({ dataset_id: ids.dataset, sql: 'select * from dataset' }), 'service', 404],
    ['generate-sql', () => ({ dataset_id: ids.dataset, natural_language_query: 'all' }), 'member', 404],
    ['generate-sql', () => ({ dataset_id: ids.dataset, natural_language_query: 'all' }), 'service', 404],
    ['import-csv', () => ({ auction_id: ids.auction, name: 'More', csv: 'a\n1\n' }), 'owner', 403],
    ['import-csv', () => ({ auction_id: ids.auction, name: 'More', csv: 'a\n1\n' }), 'service', 404],
    [
      'import-csv',
      () => ({ auction_id: ids.auction, dataset_id: ids.dataset, mode: 'append', csv: 'lot,price\n3,30\n' }),
      'service',
      404,
    ],
    [
      'send-push-notifications',
      () => ({ auction_id: ids.auction, title: 't', body: 'b', notification_type: 'x', user_ids: [ids.member] }),
      'owner',
      400,
    ],
    [
      'send-push-notifications',
      () => ({ auction_id: ids.auction, title: 't', body: 'b', notification_type: 'x', user_ids: [ids.member] }),
      'super',
      400,
    ],
    [
      'send-push-notifications',
      () => ({ auction_id: ids.auction, title: 't', body: 'b', notification_type: 'x', user_ids: [ids.member] }),
      'service',
      400,
    ],
    ['send-chat-notification', () => ({ message_id: ids.message }), 'member', 404],
    ['send-chat-notification', () => ({ message_id: ids.message }), 'service', 404],
    ['generate-invite-link', () => ({ auction_id: ids.auction, role: 'team_member' }), 'owner', 403],
    ['generate-invite-link', () => ({ auction_id: ids.auction, role: 'team_member' }), 'super', 403],
    ['generate-invite-link', () => ({ auction_id: ids.auction, role: 'team_member' }), 'service', 403],
    ['send-invite-email', () => ({ auction_id: ids.auction, email: 'y@gone.test', role: 'team_member' }), 'owner', 403],
    ['send-invite-email', () => ({ token: ids.openInvite }), 'owner', 404],
    ['send-invite-email', () => ({ token: ids.openInvite }), 'super', 404],
    ['send-invite-email', () => ({ token: ids.openInvite }), 'service', 404],
  ];

  const named = cases.map(([name, body, role, status]) => ({ name, body, role, status }));
  it.each(named)('$name as $role: $status', async ({ name, body, role, status }) => {
    const res = await callFunction(name, body(), role);
    const text = await res.text();
    expect([res.status, text.includes('"rows"')], text).toEqual([status, false]);
  });

  it('the live auction answers the same calls (the control)', async () => {
    const anon = await callFunction('execute-query', { report_id: ids.liveReport }, 'anon');
    expect(anon.status).toBe(200);
    const member = await callFunction(
      'execute-query',
      { dataset_id: ids.liveDataset, sql: 'select * from dataset' },
      'member',
    );
    expect(member.status).toBe(200);
  });

  it('check-pending-submissions names no location of the deleted auction', async () => {
    await t.db.sql`update public.locations set created_at = now() - interval '1 day' where id = ${ids.location!}`;
    const res = await callFunction('check-pending-submissions', {}, 'service');
    const body = (await res.json()) as { locations: Array<{ auction_id: string }> };
    expect(res.status).toBe(200);
    expect(body.locations.filter((l) => l.auction_id === ids.auction)).toEqual([]);
  });

  it('no invitation mail about it was sent', async () => {
    const [n] = await t.db.sql`select count(*)::int as n from public.email_log
      where to_email in ('x@gone.test', 'y@gone.test', 'invitee@gone.test')`;
    expect(n!.n).toBe(0);
  });
});

describe('storage', () => {
  it("the auction's folder lists nothing and its objects are not read", async () => {
    for (const role of ROLES) {
      const list = await clients[role].storage.from('lot-images').list(ids.auction);
      expect([role, list.data ?? []]).toEqual([role, []]);
      const read = await clients[role].storage.from('lot-images').download(ids.object!);
      expect([role, read.data]).toEqual([role, null]);
    }
    const url = clients.anon.storage.from('lot-images').getPublicUrl(ids.object!).data.publicUrl;
    expect((await fetch(url)).status).toBe(404);
  });
});

describe('realtime', () => {
  async function signedInRealtime(role: Role): Promise<SupabaseClient> {
    const client = realtimeClient(t);
    const { error } = await client.auth.signInWithPassword({ email: `${role}@gone.test`, password: TEST_PASSWORD });
    if (error) throw error;
    return client;
  }

  it('nobody joins or broadcasts on its private topics', async () => {
    for (const role of ['owner', 'admin', 'member', 'super'] as const) {
      const client = await signedInRealtime(role);
      const topic = `auction:${ids.auction}`;
      await expect(subscribed(client.channel(topic, { config: { private: true } }))).rejects.toThrow();
      await expect(client.channel(`${topic}:floor`, { config: { private: true } }).httpSend('x', {})).rejects.toThrow();
      await client.removeAllChannels();
    }
  });

  it("postgres_changes of its tables reach nobody when the service role writes (the live auction's do)", async () => {
    const client = await signedInRealtime('member');
    const heard: string[] = [];
    const channel = client
      .channel('changes')
      .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'messages' }, (m) =>
        heard.push((m.new as { auction_id: string }).auction_id),
      );
    await subscribed(channel);
    must(
      await clients.service
        .from('messages')
        .insert({ auction_id: ids.auction, channel_id: ids.channel, content: 'late' }),
    );
    must(
      await clients.service
        .from('messages')
        .insert({ auction_id: ids.live, channel_id: ids.liveChannel, content: 'now' }),
    );
    await until(() => heard.includes(ids.live!), 'the live auction change');
    expect(heard.filter((a) => a === ids.auction)).toEqual([]);
    await client.removeAllChannels();
  });
});

describe('webhooks and pushes', () => {
  it("a service-role write to it fans out to no endpoint; its auction.deleted went out, B's messages go out", async () => {
    const before = received.length;
    must(
      await clients.service
        .from('messages')
        .insert({ auction_id: ids.auction, channel_id: ids.channel, content: 'hook?' }),
    );
    must(
      await clients.service
        .from('messages')
        .insert({ auction_id: ids.live, channel_id: ids.liveChannel, content: 'hook!' }),
    );
    await until(
      () => received.slice(before).some((r) => r.auction_id === ids.live && r.event === 'message.created'),
      "B's delivery",
    );
    await until(
      () => received.some((r) => r.auction_id === ids.auction && r.event === 'auction.deleted'),
      'auction.deleted',
    );
    expect(received.filter((r) => r.auction_id === ids.auction && r.event === 'message.created')).toEqual([
      { auction_id: ids.auction, event: 'message.created' }, // the test delivery, before the deletion
    ]);
    const [queued] = await t.db.sql`select count(*)::int as n from public.webhook_deliveries
      where auction_id = ${ids.auction!} and event_type = 'message.created' and not is_test`;
    expect(queued!.n).toBe(0);
  });

  it('a delivery queued before the deletion waits while it is deleted', async () => {
    const [d] = await t.db.sql`insert into public.webhook_deliveries (endpoint_id, auction_id, event_type, payload)
      values (${ids.endpoint!}, ${ids.auction!}, 'message.created', '{"event":"message.created"}') returning id`;
    const before = received.length;
    must(
      await clients.service
        .from('messages')
        .insert({ auction_id: ids.live, channel_id: ids.liveChannel, content: 'tick' }),
    );
    await until(() => received.slice(before).some((r) => r.auction_id === ids.live), "B's next delivery");
    const [row] = await t.db.sql`select status, attempt_count from public.webhook_deliveries where id = ${d!.id}`;
    expect(row).toEqual({ status: 'queued', attempt_count: 0 });
  });

  it('no push about it: a message queued for push sends nothing, a message in B does', async () => {
    must(
      await clients.service
        .from('messages')
        .insert({ auction_id: ids.live, channel_id: ids.liveChannel, content: 'push B', user_id: ids.owner }),
    );
    await until(async () => {
      const [r] = await t.db
        .sql`select 1 from notifications.push_outbox where token = 'ExponentPushToken[gone]' and body = 'push B'`;
      return r !== undefined;
    }, "B's push");
    await until(async () => {
      const [q] = await t.db
        .sql`select 1 from notifications.push_jobs where auction_id = ${ids.auction!} and status = 'queued'`;
      return q === undefined;
    }, "A's push jobs to be handled");
    const aboutA = await t.db
      .sql`select body from notifications.push_outbox where data ->> 'channel_id' = ${ids.channel!}`;
    expect(aboutA).toEqual([]);
  });
});
