// The isolation matrix over HTTP: every relation of schema public read, and every table written (POST, PATCH,
// DELETE), as six roles (owner, admin and team member of auction A, a user of auction B only, the anon key, a super
// admin) through supabase-js and the real server, one server and database for the whole file. Coverage tests at the
// end fail for a relation no GET case reads, a table no write case covers, and one docs/rest.md does not name.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import type { TestDatabase } from '@auction-ops/database/testing';
import { type Write, writes } from './support/rest-matrix-writes.js';
import { startTestServer, type TestServer, TEST_CLIENT_OPTIONS } from './support/test-server.js';

const ROLES = ['owner', 'admin', 'member', 'other', 'anon', 'super'] as const;
type Role = (typeof ROLES)[number];

let t: TestServer;
let db: TestDatabase;
let server: TestServer['server'];
const clients = {} as Record<Role, SupabaseClient>;
const ids: Record<string, string | undefined> = {};

const signedIn = (key: string) => t.signUp(`${key}@matrix.test`, key);

/** The data of a supabase-js answer; a fixture that fails stops the file instead of skewing its outcomes. */
function must<T>(r: { data: T; error: unknown }): NonNullable<T> {
  if (r.error) throw new Error(`fixture failed: ${JSON.stringify(r.error)}`);
  return r.data as NonNullable<T>;
}

/** One row inserted as `client`, answered as stored. */
const insertOne = async (client: SupabaseClient, table: string, row: Record<string, unknown>) =>
  must(await client.from(table).insert(row).select().single());

beforeAll(async () => {
  // The data interface's rate limits stay off (the test server's default): these files send more than 60 requests
  // a minute from one address. The write cases run with `Prefer: tx=rollback`, which the server then honours.
  t = await startTestServer({
    AUTH_RATE_LIMIT_SIGN_UP: '100',
    WEBHOOK_DISPATCHER_ENABLED: 'false',
    REST_TX_ROLLBACK_ALLOWED: 'true',
  });
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
  ids.auction = (await insertOne(clients.owner, 'auctions', { name: 'A', slug: 'matrix-a' })).id;
  must(await clients.other.from('auctions').insert({ name: 'B', slug: 'matrix-b' }));
  for (const [role, r] of [
    ['admin', 'admin'],
    ['member', 'team_member'],
  ] as const) {
    const inv = must(
      await clients.owner.rpc('invite_user_to_auction', {
        p_auction_id: ids.auction,
        p_email: `${role}@matrix.test`,
        p_role: r,
      }),
    );
    must(await clients[role].rpc('accept_auction_invite', { p_token: inv.token }));
  }
  ids.location = (await insertOne(clients.admin, 'locations', { auction_id: ids.auction, name: 'Lot' })).id;
  must(await clients.admin.from('location_assignments').insert({ location_id: ids.location, user_id: ids.member }));
  ids.unassigned = (
    await insertOne(clients.admin, 'locations', { auction_id: ids.auction, name: 'Unassigned lot' })
  ).id;
  const type = await insertOne(clients.admin, 'submission_types', { auction_id: ids.auction, name: 'Sold' });
  ids.type = type.id;
  must(
    await clients.admin
      .from('location_submission_types')
      .insert({ location_id: ids.location, submission_type_id: type.id, display_order: 1 }),
  );
  must(
    await clients.member.rpc('create_lot_submission_with_entries', {
      p_location_id: ids.location,
      p_entries: [{ submission_type_id: type.id, car_count: 4 }],
    }),
  );
  ids.submission = (await db.sql`select id from public.lot_submissions where auction_id = ${ids.auction!}`)[0]!.id;
  const inspection = await insertOne(clients.member, 'quality_inspections', {
    auction_id: ids.auction,
    location_id: ids.location,
    vin_number: '1HGCM82633A004352',
    barcode: 'B',
  });
  ids.inspection = inspection.id;
  ids.sharedCategory = must(
    await clients.member.from('defect_categories').select('id').is('auction_id', null).eq('name', 'Dent').single(),
  ).id;
  must(
    await clients.member
      .from('quality_defects')
      .insert({ inspection_id: inspection.id, category_id: ids.sharedCategory, notes: 'door' }),
  );
  must(await clients.admin.from('defect_categories').insert({ auction_id: ids.auction, name: 'Hail' }));
  const problem = await insertOne(clients.member, 'problem_reports', {
    auction_id: ids.auction,
    issue_name: 'Gate',
    area: 'Yard',
    location_id: ids.location,
  });
  ids.problem = problem.id;
  must(await clients.member.from('problem_facts').insert({ problem_id: problem.id, who: 'crew' }));
  must(await clients.member.from('potential_causes').insert({ problem_id: problem.id, cause_text: 'nails' }));
  must(await clients.member.from('problem_actions').insert({ problem_id: problem.id, issue: 'sweep' }));
  ids.channel = (
    await insertOne(clients.admin, 'channels', {
      auction_id: ids.auction,
      name: 'general',
      description: 'all',
    })
  ).id;
  const message = await insertOne(clients.member, 'messages', {
    auction_id: ids.auction,
    channel_id: ids.channel,
    content: 'hi',
    message_type: 'text',
  });
  ids.message = message.id;
  must(await clients.member.from('message_reactions').insert({ message_id: message.id, emoji: '👍' }));
  // Rows only their user reads: the owner's read state, notification preference, push token and e-mail log.
  must(await clients.owner.rpc('mark_channel_as_read', { p_channel_id: ids.channel }));
  must(
    await clients.owner
      .from('channel_notification_preferences')
      .insert({ channel_id: ids.channel, preference: 'mentions' }),
  );
  must(await clients.owner.from('user_push_tokens').insert({ token: 'ExponentPushToken[matrix]', platform: 'ios' }));
  must(await clients.owner.rpc('log_email', { p_to_email: 'owner@matrix.test', p_template: 't', p_status: 'sent' }));
  must(await clients.admin.from('auction_branding').insert({ auction_id: ids.auction, app_name: 'A app' }));
  const dataset = await insertOne(clients.admin, 'datasets', { auction_id: ids.auction, name: 'Sales' });
  ids.dataset = dataset.id;
  must(
    await clients.admin
      .from('saved_reports')
      .insert({ auction_id: ids.auction, dataset_id: dataset.id, name: 'Top', sql: 'select 1' }),
  );
  // generate-sql writes its audit row and conversation as the caller, under the same policies as these inserts.
  must(
    await clients.owner
      .from('query_audit_log')
      .insert({ auction_id: ids.auction, dataset_id: dataset.id, natural_language_query: 'top lots', sql: 'select 1' }),
  );
  ids.conversation = (
    await insertOne(clients.owner, 'query_conversations', {
      auction_id: ids.auction,
      dataset_id: dataset.id,
    })
  ).id;
  must(
    await clients.owner
      .from('query_conversation_messages')
      .insert({ conversation_id: ids.conversation, role: 'user', content: 'top lots?' }),
  );
  const endpoint = await insertOne(clients.owner, 'webhook_endpoints', {
    auction_id: ids.auction,
    url: 'https://hooks.matrix.test/a',
    events: ['message.created'],
    secret: 'matrix-secret-0123456789',
  });
  ids.endpoint = endpoint.id;
  const test = must(
    await clients.owner.rpc('test_webhook', { endpoint_id: endpoint.id, event_type: 'message.created' }),
  );
  // Attempts are written by the dispatcher alone (off here), which runs as the database owner.
  const attempt = {
    delivery_id: test.delivery_id as string,
    endpoint_id: endpoint.id as string,
    auction_id: ids.auction!,
    event_type: 'message.created',
    attempt: 1,
    status: 'failed',
    response_status: 500,
    response_time_ms: 12,
  };
  await db.sql`insert into public.webhook_delivery_attempts ${db.sql(attempt)}`;
  ids.delivery = attempt.delivery_id;
  // The catalogue is global: the probe reads the type of an event auction A emitted.
  const [event] = await db.sql`select event_type from public.event_outbox where auction_id = ${ids.auction!}
    order by occurred_at limit 1`;
  ids.eventType = event!.event_type as string;
});
afterAll(async () => {
  await t?.stop();
});

type Result = { data: unknown; status: number; error: unknown };
type Probe = (c: SupabaseClient, role: Role) => PromiseLike<Result>;

/**
 * The GET cases: every relation of schema public, read with `column` = ids[key], a filter that selects at least one
 * row of auction A's side (so 'rows' against 'none' means something). `select` names the columns read where not
 * every column is granted. Expected outcomes follow the relation's policies and, where it has one, the SQL
 * isolation matrix's (packages/domain/test/isolation-matrix.test.ts), with 'deny' as 403, or 401 for anon.
 */
type Read = readonly [relation: string, column: string, key: string, expected: string, select?: string];
const reads: Read[] = [
  // Tenancy and membership.
  ['auctions', 'id', 'auction', 'rows rows rows none 401 rows'],
  ['auction_members', 'auction_id', 'auction', 'rows rows rows none 401 rows'],
  ['auction_branding', 'auction_id', 'auction', 'rows rows rows none 401 rows'],
  // Invitations are read by their granted columns: the token hash is granted to no request role.
  ['auction_invitations', 'auction_id', 'auction', 'rows rows none none 401 rows', 'id,email,role'],
  ['auction_invitations', 'auction_id', 'auction', '403 403 403 403 401 403', 'token_hash'],
  ['users', 'id', 'member', 'rows rows rows none 401 rows'],
  ['super_admins', 'user_id', 'super', 'none none none none 401 rows'],
  ['event_outbox', 'auction_id', 'auction', 'rows rows none none 401 rows'],
  ['event_types', 'name', 'eventType', 'rows rows rows rows rows rows'],
  // Locations and submissions.
  ['locations', 'auction_id', 'auction', 'rows rows rows none 401 rows'],
  ['locations', 'id', 'unassigned', 'rows rows none none 401 rows'],
  ['location_assignments', 'auction_id', 'auction', 'rows rows rows none 401 rows'],
  ['submission_types', 'auction_id', 'auction', 'rows rows rows none 401 rows'],
  ['location_submission_types', 'auction_id', 'auction', 'rows rows rows none 401 rows'],
  ['lot_submissions', 'auction_id', 'auction', 'rows rows rows none 401 rows'],
  ['lot_submission_entries', 'auction_id', 'auction', 'rows rows rows none 401 rows'],
  ['recent_submissions', 'auction_id', 'auction', 'rows rows rows none 401 rows'],
  // Inspections: A's own defect category, and a shared one (auction_id null) every signed-in user reads.
  ['quality_inspections', 'auction_id', 'auction', 'rows rows rows none 401 rows'],
  ['quality_defects', 'auction_id', 'auction', 'rows rows rows none 401 rows'],
  ['recent_quality_inspections', 'auction_id', 'auction', 'rows rows rows none 401 rows'],
  ['defect_categories', 'auction_id', 'auction', 'rows rows rows none 401 rows'],
  ['defect_categories', 'id', 'sharedCategory', 'rows rows rows rows 401 rows'],
  // Problem reports.
  ['problem_reports', 'auction_id', 'auction', 'rows rows rows none 401 rows'],
  ['problem_facts', 'auction_id', 'auction', 'rows rows rows none 401 rows'],
  ['potential_causes', 'auction_id', 'auction', 'rows rows rows none 401 rows'],
  ['problem_actions', 'auction_id', 'auction', 'rows rows rows none 401 rows'],
  ['active_problem_reports', 'auction_id', 'auction', 'rows rows rows none 401 rows'],
  // Chat: read state and notification preferences are the owner's own rows, read by nobody else.
  ['channels', 'auction_id', 'auction', 'rows rows rows none 401 rows'],
  ['messages', 'auction_id', 'auction', 'rows rows rows none 401 rows'],
  ['messages_with_reply_count', 'channel_id', 'channel', 'rows rows rows none 401 rows'],
  ['message_reactions', 'auction_id', 'auction', 'rows rows rows none 401 rows'],
  ['channel_read_state', 'auction_id', 'auction', 'rows none none none 401 none'],
  ['channel_notification_preferences', 'auction_id', 'auction', 'rows none none none 401 none'],
  // Reporting: the audit log row is the owner's (admins read the auction's, others their own); conversations are
  // their user's alone.
  ['datasets', 'auction_id', 'auction', 'rows rows rows none 401 rows'],
  ['saved_reports', 'auction_id', 'auction', 'rows rows rows none 401 rows'],
  ['query_audit_log', 'auction_id', 'auction', 'rows rows none none 401 rows'],
  ['query_conversations', 'auction_id', 'auction', 'rows none none none 401 none'],
  ['query_conversation_messages', 'conversation_id', 'conversation', 'rows none none none 401 none'],
  // Per-user records of A's owner.
  ['email_log', 'user_id', 'owner', 'rows none none none 401 rows'],
  ['user_push_tokens', 'user_id', 'owner', 'rows none none none 401 none'],
  // Webhooks: the auction's admins and super admins.
  ['webhook_endpoints', 'auction_id', 'auction', 'rows rows none none 401 rows'],
  ['webhook_deliveries', 'auction_id', 'auction', 'rows rows none none 401 rows'],
  ['webhook_delivery_attempts', 'auction_id', 'auction', 'rows rows none none 401 rows'],
];

const readCase = ([relation, column, key, expected, select = '*']: Read): [string, Probe, string] => [
  `GET ${relation}?select=${select}&${column}=eq.<${key}>`,
  (c) => c.from(relation).select(select).eq(column, ids[key]!),
  expected,
];

/** POST, PATCH and DELETE of one table, each rolled back (support/rest-matrix-writes.ts). */
const writeCases = (w: Write): [string, Probe, string][] => {
  const [column, key] = w.where;
  return [
    [`POST ${w.table}`, (c) => c.from(w.table).insert(w.row(ids)).select().rollback(), w.post],
    [
      `PATCH ${w.table}?${column}=eq.<${key}>`,
      (c) => c.from(w.table).update(w.patch(ids)).eq(column, ids[key]!).select().rollback(),
      w.update,
    ],
    [
      `DELETE ${w.table}?${column}=eq.<${key}>`,
      (c) => c.from(w.table).delete().eq(column, ids[key]!).select().rollback(),
      w.delete,
    ],
  ];
};

const cases: [string, Probe, string][] = [
  ...writes.flatMap(writeCases),
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

/** Each role's outcome of one case, checked against the expected line. */
function expectOutcomes(results: readonly Result[], expected: string): void {
  for (const r of results) if (r.status === 403) expect((r.error as { code?: string }).code).toBe('42501');
  const actual = results.map((r, i) => `${ROLES[i]}:${outcome(r)}`);
  expect(actual).toEqual(expected.split(' ').map((o, i) => `${ROLES[i]}:${o}`));
}

// Reads run five cases at a time, the roles of a case at once: nothing they do changes what another sees.
it.concurrent.each(reads.map(readCase))('%s', async (_name, probe, expected) => {
  expectOutcomes(await Promise.all(ROLES.map((role) => probe(clients[role], role))), expected);
});

// Writes, one case at a time, its six roles at once. Rolled back, they change nothing, but two cases at once would
// wait on each other's row locks in different orders (a PATCH of submissions and a DELETE of entries, through the
// rollups' triggers) and deadlock, as they did here. The roles of one case run the same statement on the same few
// rows, taking their locks in the same order: they wait on each other at most, never in a circle.
it.each(cases)('%s', async (_name, probe, expected) => {
  expectOutcomes(await Promise.all(ROLES.map((role) => probe(clients[role], role))), expected);
});

// By exact name: a relation counts as covered only when a GET case names it as the relation it reads.
it('reads every table and view of schema public', async () => {
  const relations = await db.sql<{ relname: string }[]>`
    select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = 'public' and c.relkind in ('r', 'v', 'm') order by 1`;
  const read = new Set(reads.map(([relation]) => relation));
  expect(
    relations.map((r) => r.relname).filter((name) => !read.has(name)),
    'relations of schema public no GET case reads',
  ).toEqual([]);
});

// By exact name, as for reads: a table counts as written only when a write case names it.
it('writes every table of schema public: POST, PATCH and DELETE as every role', async () => {
  const tables = await db.sql<{ relname: string }[]>`
    select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = 'public' and c.relkind = 'r' order by 1`;
  const written = new Set(writes.map((w) => w.table));
  expect(
    tables.map((r) => r.relname).filter((name) => !written.has(name)),
    'tables of schema public no write case covers (apps/server/test/support/rest-matrix-writes.ts)',
  ).toEqual([]);
});

// docs/rest.md's table of what the domain exposes is how a client developer finds a table: every relation of schema
// public has its row there, and the table names nothing that is gone.
it('docs/rest.md names every table and view of schema public in "What the domain exposes"', async () => {
  const doc = readFileSync(fileURLToPath(new URL('../../../docs/rest.md', import.meta.url)), 'utf8');
  const section = doc.slice(doc.indexOf('## What the domain exposes'), doc.indexOf('\nRPCs ('));
  const named = new Set(
    section
      .split('\n')
      .filter((line) => line.startsWith('| '))
      .flatMap((line) => [...(line.split('|')[2] ?? '').matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!)),
  );
  const relations = (
    await db.sql<{ relname: string }[]>`
    select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = 'public' and c.relkind in ('r', 'v', 'm') order by 1`
  ).map((r) => r.relname);
  expect(
    relations.filter((r) => !named.has(r)),
    'relations docs/rest.md does not name',
  ).toEqual([]);
  expect(
    [...named].filter((r) => !relations.includes(r)),
    'named in docs/rest.md but not in the schema',
  ).toEqual([]);
});
