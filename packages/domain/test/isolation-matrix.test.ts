// The isolation matrix, written as data: for every table, view and RPC, what each role gets when it reads or
// writes auction A's data. Outcomes: 'rows' (rows returned or affected), 'none' (filtered out by row-level
// security), 'deny' (SQLSTATE 42501), or another SQLSTATE. Every probe runs in its own rolled-back transaction.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type postgres from 'postgres';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { authMigrations } from '@auction-ops/auth-core';
import { domainMigrations } from '../src/index.js';
import { claimsFor, closeClients, probeAsUser } from './support/as-user.js';
import { buildWorld, type World } from './support/world.js';

type Outcome = 'rows' | 'none' | 'deny' | string;
const ROLES = ['owner', 'admin', 'member', 'other', 'anon', 'super'] as const;
type Probe = (tx: postgres.ReservedSql, w: World) => Promise<readonly unknown[]>;
interface Case {
  name: string;
  run: Probe;
  expect: string;
  /** The relation a case names by parameter rather than in its SQL (readA). */
  relation?: string;
}

// expect: one token per role, in ROLES order.
const R = (name: string, run: Probe, expect: string): Case => ({ name, run, expect });
const A = (w: World) => w.a.auctionId;
/** A read of auction A's rows of a table or view, by its key column. */
const readA = (table: string, expect: string, column = 'id'): Case => ({
  ...R(
    `select ${table}`,
    (tx, w) => tx`select ${tx(column)} from public.${tx(table)} where auction_id = ${A(w)}`,
    expect,
  ),
  relation: table,
});

/** The relations of schema public a case's SQL names, exactly (its source text), or that it reads by parameter. */
const relationsOf = (c: Case) => [
  ...[...c.run.toString().matchAll(/\bpublic\.([a-z_][a-z0-9_]*)/g)].map((m) => m[1] as string),
  ...(c.relation ? [c.relation] : []),
];

const deleteAndList: Probe = async (tx, w) => {
  await tx`delete from public.auctions where id = ${A(w)}`;
  return tx`select id from public.list_deleted_auctions() where id = ${A(w)}`;
};

const cases: Case[] = [
  // Reads of auction A's rows.
  R(
    'select auctions',
    (tx, w) => tx`select id from public.auctions where id = ${A(w)}`,
    'rows rows rows none deny rows',
  ),
  readA('auction_members', 'rows rows rows none deny rows'),
  readA('auction_invitations', 'rows rows none none deny rows'),
  R(
    'select invitation token_hash',
    (tx) => tx`select token_hash from public.auction_invitations`,
    'deny deny deny deny deny deny',
  ),
  readA('auction_branding', 'rows rows rows none deny rows', 'auction_id'),
  R(
    'select users (profile of A member)',
    (tx, w) => tx`select id from public.users where id = ${w.a.member}`,
    'rows rows rows none deny rows',
  ),
  R('select super_admins', (tx) => tx`select user_id from public.super_admins`, 'none none none none deny rows'),
  readA('event_outbox', 'rows rows none none deny rows'),
  readA('locations', 'rows rows rows none deny rows'),
  readA('submission_types', 'rows rows rows none deny rows'),
  R(
    'select location_submission_types',
    (tx, w) => tx`select location_id from public.location_submission_types where auction_id = ${A(w)}`,
    'rows rows rows none deny rows',
  ),
  readA('lot_submissions', 'rows rows rows none deny rows'),
  readA('lot_submission_entries', 'rows rows rows none deny rows'),
  readA('recent_submissions', 'rows rows rows none deny rows'),
  readA('quality_inspections', 'rows rows rows none deny rows'),
  readA('quality_defects', 'rows rows rows none deny rows'),
  readA('recent_quality_inspections', 'rows rows rows none deny rows'),
  R(
    'select shared defect_categories',
    (tx) => tx`select id from public.defect_categories where auction_id is null`,
    'rows rows rows rows deny rows',
  ),
  readA('problem_reports', 'rows rows rows none deny rows'),
  readA('problem_facts', 'rows rows rows none deny rows'),
  readA('potential_causes', 'rows rows rows none deny rows'),
  readA('problem_actions', 'rows rows rows none deny rows'),
  readA('active_problem_reports', 'rows rows rows none deny rows'),
  readA('channels', 'rows rows rows none deny rows'),
  readA('messages', 'rows rows rows none deny rows'),
  readA('messages_with_reply_count', 'rows rows rows none deny rows'),
  readA('message_reactions', 'rows rows rows none deny rows'),
  readA('datasets', 'rows rows rows none deny rows'),
  readA('saved_reports', 'rows rows rows none deny rows'),
  R(
    "select email_log (one row, the owner's)",
    (tx) => tx`select id from public.email_log`,
    'rows none none none deny rows',
  ),

  // Auctions and membership.
  R(
    'update auction settings',
    (tx, w) => tx`update public.auctions set settings = '{"timezone":"UTC"}' where id = ${A(w)} returning id`,
    'rows rows none none deny rows',
  ),
  // A delete marks the auction (domain/0031): the row is skipped, so the probe reads the mark back through the
  // list of deleted auctions the caller may undo. Its admins and members are refused (0034), others find no row.
  R('delete auction', deleteAndList, 'rows deny deny none deny rows'),
  R(
    'rpc delete_auction',
    (tx, w) => tx`select * from public.delete_auction(p_auction_id := ${A(w)})`,
    'rows deny deny deny deny rows',
  ),
  R(
    'rpc restore_deleted_auction (A is not deleted)',
    (tx, w) => tx`select * from public.restore_deleted_auction(p_auction_id := ${A(w)})`,
    'P0002 deny deny deny deny P0002',
  ),
  R(
    'rpc purge_deleted_auction_now (A is not deleted)',
    (tx, w) => tx`select public.purge_deleted_auction_now(p_auction_id := ${A(w)}) r`,
    'deny deny deny deny deny P0002',
  ),
  R(
    'rpc list_deleted_auctions',
    (tx) => tx`select * from public.list_deleted_auctions()`,
    'none none none none deny none',
  ),
  R('rpc deleted_auction_ids', (tx) => tx`select * from public.deleted_auction_ids()`, 'none none none none deny none'),
  R(
    'upsert auction_branding',
    (tx, w) =>
      tx`insert into public.auction_branding (auction_id, app_name) values (${A(w)}, 'X')
        on conflict (auction_id) do update set app_name = 'Y' returning auction_id`,
    'rows rows deny deny deny rows',
  ),
  R(
    'insert auction_members directly',
    (tx, w) =>
      tx`insert into public.auction_members (auction_id, user_id, role) values (${A(w)}, ${w.b.owner}, 'admin')
        returning id`,
    'deny deny deny deny deny deny',
  ),
  R(
    'insert event_outbox directly',
    (tx, w) => tx`insert into public.event_outbox (auction_id, event_type) values (${A(w)}, 'x') returning id`,
    'deny deny deny deny deny deny',
  ),
  // The event catalogue is public knowledge; only migrations write it.
  R('read event_types', (tx) => tx`select name from public.event_types`, 'rows rows rows rows rows rows'),
  R(
    'insert event_types',
    (tx) => tx`insert into public.event_types (name, area, emitted_when, fields, sample, since_version)
      values ('gate.opened', 'gates', 'never', '{}', '{}', '0.5.0') returning name`,
    'deny deny deny deny deny deny',
  ),
  R(
    'insert super_admins',
    (tx, w) => tx`insert into public.super_admins (user_id) values (${w.a.member}) returning user_id`,
    'deny deny deny deny deny rows',
  ),
  R(
    'rpc invite_user_to_auction',
    (tx, w) =>
      tx`select public.invite_user_to_auction(p_auction_id := ${A(w)}, p_email := 'new@x.test',
        p_role := 'team_member') r`,
    'rows rows deny deny deny rows',
  ),
  R(
    'rpc change_member_role',
    (tx, w) =>
      tx`select * from public.change_member_role(p_auction_id := ${A(w)}, p_user_id := ${w.a.member},
        p_new_role := 'admin')`,
    'rows rows deny deny deny rows',
  ),
  R(
    'rpc change_member_role of the owner',
    (tx, w) =>
      tx`select * from public.change_member_role(p_auction_id := ${A(w)}, p_user_id := ${w.a.owner},
        p_new_role := 'admin')`,
    'P0001 deny deny deny deny P0001',
  ),
  R(
    'rpc remove_auction_member (team member)',
    (tx, w) => tx`select public.remove_auction_member(p_auction_id := ${A(w)}, p_user_id := ${w.a.member}) r`,
    'rows rows rows deny deny rows',
  ),
  R(
    'rpc transfer_auction_ownership',
    (tx, w) => tx`select public.transfer_auction_ownership(p_auction_id := ${A(w)}, p_new_owner_id := ${w.a.admin}) r`,
    'rows deny deny deny deny deny',
  ),

  // Locations and submissions.
  R(
    'insert location',
    (tx, w) => tx`insert into public.locations (auction_id, name) values (${A(w)}, 'New lot') returning id`,
    'rows rows deny deny deny rows',
  ),
  R(
    'update location',
    (tx, w) => tx`update public.locations set is_active = false where id = ${w.ids.location} returning id`,
    'rows rows none none deny rows',
  ),
  R(
    'delete location',
    (tx, w) => tx`delete from public.locations where id = ${w.ids.location} returning id`,
    'rows rows none none deny rows',
  ),
  R(
    'insert submission_type',
    (tx, w) => tx`insert into public.submission_types (auction_id, name) values (${A(w)}, 'Held') returning id`,
    'rows rows deny deny deny rows',
  ),
  R(
    'rpc get_location_submission_types_ordered',
    (tx, w) => tx`select * from public.get_location_submission_types_ordered(p_location_id := ${w.ids.location})`,
    'rows rows rows none deny rows',
  ),
  R(
    'insert lot_submission as self',
    (tx, w) =>
      tx`insert into public.lot_submissions (auction_id, location_id) values (${A(w)}, ${w.ids.location}) returning id`,
    'rows rows rows deny deny rows',
  ),
  R(
    'insert lot_submission for someone else',
    (tx, w) =>
      tx`insert into public.lot_submissions (auction_id, location_id, user_id)
        values (${A(w)}, ${w.ids.location}, ${w.a.owner}) returning id`,
    'rows rows deny deny deny rows',
  ),
  R(
    'update member submission',
    (tx, w) => tx`update public.lot_submissions set notes = 'x' where id = ${w.ids.submission} returning id`,
    'rows rows rows none deny rows',
  ),
  R(
    'insert entry into member submission',
    (tx, w) =>
      tx`insert into public.lot_submission_entries (submission_id, submission_type_id, car_count)
        values (${w.ids.submission}, ${w.ids.type}, 1) returning id`,
    'rows rows rows deny deny rows',
  ),
  R(
    'rpc create_lot_submission_with_entries',
    (tx, w) =>
      tx`select public.create_lot_submission_with_entries(p_location_id := ${w.ids.location},
        p_entries := ${tx.json([{ submission_type_id: w.ids.type, car_count: 3 }])}) r`,
    'rows rows rows deny deny rows',
  ),
  R(
    'rpc get_submission_with_entries',
    (tx, w) => tx`select public.get_submission_with_entries(p_submission_id := ${w.ids.submission}) r`,
    'rows rows rows PT404 deny rows',
  ),

  // Inspections.
  R(
    'insert quality_inspection',
    (tx, w) =>
      tx`insert into public.quality_inspections (auction_id, location_id, vin_number, barcode)
        values (${A(w)}, ${w.ids.location}, '1HGCM82633A004353', 'B') returning id`,
    'rows rows rows deny deny rows',
  ),
  // Assigned locations: the team member works at North lot only; South lot is assigned to nobody.
  readA('location_assignments', 'rows rows rows none deny rows'),
  R(
    'select locations: the unassigned South lot',
    (tx, w) => tx`select id from public.locations where id = ${w.ids.unassignedLocation}`,
    'rows rows none none deny rows',
  ),
  R(
    'insert lot_submission at an unassigned location',
    (tx, w) =>
      tx`insert into public.lot_submissions (auction_id, location_id) values (${A(w)}, ${w.ids.unassignedLocation})
        returning id`,
    'rows rows deny deny deny rows',
  ),
  R(
    'insert quality_inspection at an unassigned location',
    (tx, w) =>
      tx`insert into public.quality_inspections (auction_id, location_id, vin_number, barcode)
        values (${A(w)}, ${w.ids.unassignedLocation}, '1HGCM82633A004354', 'B') returning id`,
    'rows rows deny deny deny rows',
  ),
  R(
    'insert location_assignment',
    (tx, w) =>
      tx`insert into public.location_assignments (location_id, user_id)
        values (${w.ids.unassignedLocation}, ${w.a.member}) returning id`,
    'rows rows deny deny deny rows',
  ),
  R(
    "rpc location_recipients (the scheduler's, not the users')",
    (tx, w) => tx`select public.location_recipients(${w.ids.location})`,
    'deny deny deny deny deny deny',
  ),
  R(
    'insert defect into member inspection',
    (tx, w) =>
      tx`insert into public.quality_defects (inspection_id, category_id, notes)
        values (${w.ids.inspection}, ${w.ids.category}, 'x') returning id`,
    'rows rows rows deny deny rows',
  ),
  R(
    'insert shared defect category',
    (tx) => tx`insert into public.defect_categories (name) values ('Hail') returning id`,
    'deny deny deny deny deny rows',
  ),
  R(
    'insert auction defect category',
    (tx, w) => tx`insert into public.defect_categories (auction_id, name) values (${A(w)}, 'Hail') returning id`,
    'rows rows deny deny deny rows',
  ),

  // Rock reports.
  R(
    'insert problem_report',
    (tx, w) =>
      tx`insert into public.problem_reports (auction_id, issue_name, area, location_id)
        values (${A(w)}, 'Leak', 'Wash', ${w.ids.location}) returning id`,
    'rows rows rows deny deny rows',
  ),
  R(
    'move member report to in_progress',
    (tx, w) => tx`update public.problem_reports set status = 'in_progress' where id = ${w.ids.problem} returning id`,
    'rows rows rows none deny rows',
  ),
  R(
    'insert potential_causes',
    (tx, w) =>
      tx`insert into public.potential_causes (problem_id, cause_text, order_number)
        values (${w.ids.problem}, 'rain', 2) returning id`,
    'rows rows rows deny deny rows',
  ),
  R(
    'insert problem_actions',
    (tx, w) =>
      tx`insert into public.problem_actions (problem_id, issue, status) values (${w.ids.problem}, 'fix', 'pending')
        returning id`,
    'rows rows rows deny deny rows',
  ),
  R(
    'update problem_facts',
    (tx, w) => tx`update public.problem_facts set what = 'tires' where id = ${w.ids.facts} returning id`,
    'rows rows rows none deny rows',
  ),

  // Chat.
  R(
    'insert channel',
    (tx, w) =>
      tx`insert into public.channels (auction_id, name, description) values (${A(w)}, 'yard', 'd') returning id`,
    'rows rows deny deny deny rows',
  ),
  R(
    'archive channel',
    (tx, w) => tx`update public.channels set is_archived = true where id = ${w.ids.channel} returning id`,
    'rows rows none none deny rows',
  ),
  R(
    'insert message as self',
    (tx, w) =>
      tx`insert into public.messages (auction_id, channel_id, content) values (${A(w)}, ${w.ids.channel}, 'hi')
        returning id`,
    'rows rows rows deny deny rows',
  ),
  R(
    'insert message into another auction channel',
    (tx, w) =>
      tx`insert into public.messages (auction_id, channel_id, content) values (${A(w)}, ${w.ids.otherChannel}, 'hi')
        returning id`,
    'deny deny deny rows deny rows',
  ),
  R(
    'edit member message',
    (tx, w) =>
      tx`update public.messages set content = 'edited', is_edited = true where id = ${w.ids.message} returning id`,
    'rows rows rows none deny rows',
  ),
  R(
    'hard delete message',
    (tx, w) => tx`delete from public.messages where id = ${w.ids.message} returning id`,
    'rows rows none none deny rows',
  ),
  R(
    'insert reaction',
    (tx, w) =>
      tx`insert into public.message_reactions (message_id, emoji) values (${w.ids.message}, '🎉') returning id`,
    'rows rows rows deny deny rows',
  ),
  R(
    'delete member reaction',
    (tx, w) => tx`delete from public.message_reactions where id = ${w.ids.reaction} returning id`,
    'rows rows rows none deny rows',
  ),
  R(
    'rpc mark_channel_as_read',
    (tx, w) => tx`select public.mark_channel_as_read(p_channel_id := ${w.ids.channel}) r`,
    'rows rows rows deny deny rows',
  ),
  R(
    'rpc get_unread_counts',
    (tx, w) => tx`select * from public.get_unread_counts(p_auction_id := ${A(w)})`,
    'rows rows rows none deny rows',
  ),

  // Analytics, accounts, reporting.
  R(
    'rpc get_location_stats',
    (tx, w) =>
      tx`select public.get_location_stats(p_location_id := ${w.ids.location}, p_start_date := '2000-01-01',
        p_end_date := '2100-01-01') r`,
    'rows rows rows deny deny rows',
  ),
  R(
    'rpc get_all_locations_stats (A rows)',
    (tx, w) =>
      tx`select * from public.get_all_locations_stats(p_start_date := '2000-01-01', p_end_date := '2100-01-01')
        where auction_id = ${A(w)}`,
    'rows rows rows none deny rows',
  ),
  R(
    'rpc get_defect_trends (A rows)',
    (tx, w) =>
      tx`select * from public.get_defect_trends(p_start_date := '2000-01-01', p_end_date := '2100-01-01',
        p_location_id := ${w.ids.location})`,
    'rows rows rows none deny rows',
  ),
  R(
    'rpc get_pending_submissions (A rows)',
    // 10:00 in auction A's New York: North lot (the member's) opened four hours before and is overdue.
    (tx, w) =>
      tx`select * from public.get_pending_submissions(p_now := '2030-01-01T15:00:00Z') where auction_id = ${A(w)}`,
    'rows rows rows none deny rows',
  ),
  R(
    'insert dataset',
    (tx, w) => tx`insert into public.datasets (auction_id, name) values (${A(w)}, 'Q') returning id`,
    'rows rows deny deny deny rows',
  ),
  R(
    'insert own user_push_tokens',
    (tx) =>
      tx`insert into public.user_push_tokens (token, platform) values ('ExponentPushToken[x]', 'ios') returning id`,
    'rows rows rows rows deny rows',
  ),
  R(
    'rpc log_email',
    (tx) => tx`select public.log_email(p_to_email := 'a@x.test', p_template := 't', p_status := 'sent') r`,
    'rows rows rows rows deny rows',
  ),
  R(
    'rpc user_display_name (definer, so not callable)',
    (tx, w) => tx`select public.user_display_name(${w.b.owner}) r`,
    'deny deny deny deny deny deny',
  ),
  R(
    'rpc auction_timezone of auction A',
    (tx, w) => tx`select public.auction_timezone(${A(w)}) r where public.auction_timezone(${A(w)}) is not null`,
    'rows rows rows none deny rows',
  ),
  R(
    'rpc channel_is_open of an A channel',
    (tx, w) => tx`select 1 where public.channel_is_open(${w.ids.channel})`,
    'rows rows rows none deny rows',
  ),
  R(
    'rpc anonymize another user',
    (tx, w) => tx`select public.anonymize_user(p_user_id := ${w.a.member}) r`,
    'deny deny rows deny deny rows',
  ),
  // The admin console's RPCs (0018-admin-console.sql): super admins only, whoever else asks.
  R(
    'rpc admin_search_users',
    (tx) => tx`select * from public.admin_search_users(p_query := 'x.test')`,
    'deny deny deny deny deny rows',
  ),
  R(
    'rpc admin_auctions (A by its name)',
    (tx, w) =>
      tx`select * from public.admin_auctions() a where a.id = ${A(w)} and a.location_count > 0 and a.member_count > 0`,
    'deny deny deny deny deny rows',
  ),
  R(
    'rpc admin_set_user_banned (an A member)',
    (tx, w) => tx`select public.admin_set_user_banned(p_user_id := ${w.a.member}, p_banned := true) r`,
    'deny deny deny deny deny rows',
  ),
  R(
    'rpc admin_user_sessions (an A member, who has none)',
    (tx, w) => tx`select * from public.admin_user_sessions(p_user_id := ${w.a.member})`,
    'deny deny deny deny deny none',
  ),
  // The outbox RPCs (0019-admin-outboxes.sql); this database has no notifications schema, so no push jobs.
  R(
    'rpc admin_mail_outbox (a stored message)',
    (tx) => tx`select * from public.admin_mail_outbox() m where m.to_email = 'o@x.test'`,
    'deny deny deny deny deny rows',
  ),
  R('rpc admin_push_jobs', (tx) => tx`select * from public.admin_push_jobs()`, 'deny deny deny deny deny none'),
];

let db: TestDatabase;
let w: World;
beforeAll(async () => {
  db = await createTestDatabase([authMigrations, domainMigrations]);
  w = await buildWorld(db.sql);
  await db.sql`insert into public.auction_branding (auction_id, app_name) values (${w.a.auctionId}, 'A app')`;
  await db.sql`insert into public.auction_invitations (auction_id, email, role, token_hash)
    values (${w.a.auctionId}, 'z@x.test', 'admin', 'h')`;
  await db.sql`insert into public.email_log (user_id, to_email, template, status)
    values (${w.a.owner}, 'o@x.test', 't', 'sent')`;
  await db.sql`insert into auth.mail_outbox (to_email, from_email, subject, text_body)
    values ('o@x.test', 'noreply@x.test', 'Welcome', 'hello')`;
});
afterAll(async () => {
  await closeClients();
  await db.drop();
});

function userOf(role: (typeof ROLES)[number]): string | null {
  return { owner: w.a.owner, admin: w.a.admin, member: w.a.member, other: w.b.owner, anon: null, super: w.superAdmin }[
    role
  ];
}

async function probeOutcome(claims: ReturnType<typeof claimsFor>, run: Probe): Promise<Outcome> {
  try {
    const rows = await probeAsUser(db.requestUrl, claims, (tx) => run(tx, w));
    return rows.length > 0 ? 'rows' : 'none';
  } catch (error) {
    const code = (error as { code?: string }).code;
    return code === '42501' ? 'deny' : (code ?? String(error));
  }
}

function outcome(role: (typeof ROLES)[number], run: Probe, extraClaims = {}): Promise<Outcome> {
  return probeOutcome({ ...claimsFor(userOf(role)), ...extraClaims }, run);
}

describe('isolation matrix', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const actual: string[] = [];
    for (const role of ROLES) actual.push(await outcome(role, c.run));
    expect(actual.map((o, i) => `${ROLES[i]}:${o}`)).toEqual(c.expect.split(' ').map((o, i) => `${ROLES[i]}:${o}`));
  });

  it('covers every table and view of the domain', async () => {
    const relations = await db.sql`
      select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind in ('r', 'v') order by 1`;
    // By exact name: a case covers the relations its SQL names (a name's prefix or a singular no longer counts).
    const probed = new Set(cases.flatMap(relationsOf));
    const missing = relations
      .map((r) => r.relname as string)
      .filter((name) => !['channel_read_state', 'channel_notification_preferences', 'query_audit_log'].includes(name))
      .filter((name) => !probed.has(name));
    expect(missing).toEqual([]);
  });

  it('every table has row-level security enabled', async () => {
    const rows = await db.sql`
      select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind = 'r' and not c.relrowsecurity`;
    expect(rows.map((r) => r.relname)).toEqual([]);
  });
});

// Auction A with require_mfa_for_admins: its owner and admin keep admin rights only at aal2 (auth.aal() from the
// token's aal claim); at aal1 they act as members. Runs after the matrix above, which needs the setting off.
const MFA_ROLES = ['owner@aal1', 'owner@aal2', 'admin@aal1', 'admin@aal2', 'member@aal2', 'super@aal1'] as const;
const mfaCases: Case[] = [
  R(
    'update auction settings',
    (tx, w) => tx`update public.auctions set settings = settings || '{"x":1}' where id = ${A(w)} returning id`,
    'none rows none rows none rows',
  ),
  R(
    'insert location',
    (tx, w) => tx`insert into public.locations (auction_id, name) values (${A(w)}, 'New lot') returning id`,
    'deny rows deny rows deny rows',
  ),
  R(
    'update auction_branding',
    (tx, w) => tx`update public.auction_branding set app_name = 'B' where auction_id = ${A(w)} returning auction_id`,
    'none rows none rows none rows',
  ),
  readA('auction_invitations', 'none rows none rows none rows'),
  R(
    'rpc invite_user_to_auction',
    (tx, w) =>
      tx`select public.invite_user_to_auction(p_auction_id := ${A(w)}, p_email := 'new@x.test',
        p_role := 'team_member') r`,
    'deny rows deny rows deny rows',
  ),
  // An owner at aal1 acts as a member: refused, as admins and members are (0034).
  R('delete auction', deleteAndList, 'deny rows deny deny deny rows'),
  // Locations are read by assignment for team members; A's owner and admin are assigned none.
  readA('locations', 'none rows none rows rows rows'),
  R('auth.aal() of the caller', (tx) => tx`select 1 where auth.aal() = 'aal2'`, 'none rows none rows rows none'),
];

// Switching the setting on takes a session at aal2 (0017); probed while A still has it off (each probe rolls back).
describe('turning on require_mfa_for_admins', () => {
  it('is refused to an owner or admin at aal1', async () => {
    const on = (tx: postgres.ReservedSql, w: World) =>
      tx`update public.auctions set settings = settings || '{"require_mfa_for_admins": true}'
        where id = ${A(w)} returning id`;
    const actual: string[] = [];
    for (const entry of MFA_ROLES) {
      const [role, aal] = entry.split('@') as [(typeof ROLES)[number], string];
      actual.push(`${entry}:${await outcome(role, on, { aal })}`);
    }
    expect(actual.join(' ')).toBe(
      'owner@aal1:deny owner@aal2:rows admin@aal1:deny admin@aal2:rows member@aal2:none super@aal1:rows',
    );
  });
});

describe('isolation matrix with require_mfa_for_admins', () => {
  beforeAll(async () => {
    await db.sql`update public.auctions set settings = settings || '{"require_mfa_for_admins": true}'
      where id = ${w.a.auctionId}`;
  });

  it.each(mfaCases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const actual: string[] = [];
    for (const entry of MFA_ROLES) {
      const [role, aal] = entry.split('@') as [(typeof ROLES)[number], string];
      actual.push(await outcome(role, c.run, { aal }));
    }
    expect(actual.map((o, i) => `${MFA_ROLES[i]}:${o}`)).toEqual(
      c.expect.split(' ').map((o, i) => `${MFA_ROLES[i]}:${o}`),
    );
  });
});

// An anonymous user (signInAnonymously: role authenticated, is_anonymous true, no membership) against the public
// reader (anon): neither gets more than the other. 'deny' (no grant) and 'none' (refused by policy) both refuse.
let anonymousUser: string;
const anonymousCases: Array<[string, Probe, string]> = [
  [
    'create an auction',
    (tx) => tx`insert into public.auctions (name, slug) values ('Anon', 'anon-x') returning id`,
    'deny deny',
  ],
  [
    'select shared defect_categories',
    (tx) => tx`select id from public.defect_categories where auction_id is null`,
    'none deny',
  ],
  [
    'insert own user_push_tokens',
    (tx) =>
      tx`insert into public.user_push_tokens (token, platform) values ('ExponentPushToken[y]', 'ios') returning id`,
    'deny deny',
  ],
  ['select own users profile', (tx) => tx`select id from public.users where id = ${anonymousUser}`, 'none deny'],
  ['select auctions', (tx) => tx`select id from public.auctions`, 'none deny'],
  ['read event_types', (tx) => tx`select name from public.event_types`, 'rows rows'],
  [
    'rpc log_email (SECURITY DEFINER: the restrictive policy does not reach it)',
    (tx) => tx`select public.log_email(p_to_email := 'a@x.test', p_template := 't', p_status := 'sent') r`,
    'deny deny',
  ],
  ['rpc anonymize_user of another user', (tx, w) => tx`select public.anonymize_user(${w.a.owner}) r`, 'deny deny'],
];

describe('isolation matrix: anonymous users get what a public reader gets', () => {
  beforeAll(async () => {
    const [row] = await db.sql`insert into auth.users (is_anonymous) values (true) returning id`;
    anonymousUser = row!.id as string;
  });

  it.each(anonymousCases)('%s', async (_name, run, expected) => {
    const anonymous = { sub: anonymousUser, role: 'authenticated' as const, aud: 'authenticated', is_anonymous: true };
    const actual = [await probeOutcome(anonymous, run), await probeOutcome(claimsFor(null), run)];
    expect(actual.join(' ')).toBe(expected);
  });
});

// Auction A deleted (domain/0031): hidden from everyone but the service role, its writes refused, its deletion
// undone by its owner or a super admin only; auction B is untouched.
const deletedCases: Case[] = [
  ...cases.filter((c) => c.relation !== undefined).map((c) => ({ ...c, expect: 'none none none none deny none' })),
  R(
    'select auctions',
    (tx, w) => tx`select id from public.auctions where id = ${A(w)}`,
    'none none none none deny none',
  ),
  R(
    'select B auctions (untouched)',
    (tx, w) => tx`select id from public.auctions where id = ${w.b.auctionId}`,
    'none none none rows deny rows',
  ),
  R(
    'insert location',
    (tx, w) => tx`insert into public.locations (auction_id, name) values (${A(w)}, 'New lot') returning id`,
    'deny deny deny deny deny deny',
  ),
  R(
    'insert message',
    (tx, w) => tx`insert into public.messages (auction_id, channel_id, content)
      values (${A(w)}, ${w.ids.channel}, 'x') returning id`,
    'deny deny deny deny deny deny',
  ),
  R(
    'update auction_branding',
    (tx, w) => tx`update public.auction_branding set app_name = 'B' where auction_id = ${A(w)} returning auction_id`,
    'none none none none deny none',
  ),
  R(
    'update auction',
    (tx, w) => tx`update public.auctions set name = 'Back' where id = ${A(w)} returning id`,
    'none none none none deny none',
  ),
  R(
    'rpc invite_user_to_auction',
    (tx, w) =>
      tx`select public.invite_user_to_auction(p_auction_id := ${A(w)}, p_email := 'new@x.test',
        p_role := 'team_member') r`,
    'deny deny deny deny deny deny',
  ),
  R(
    'rpc restore_deleted_auction',
    (tx, w) => tx`select id from public.restore_deleted_auction(p_auction_id := ${A(w)})`,
    'rows deny deny deny deny rows',
  ),
  R(
    'rpc list_deleted_auctions',
    (tx, w) => tx`select id from public.list_deleted_auctions() where id = ${A(w)}`,
    'rows none none none deny rows',
  ),
  R(
    'rpc purge_deleted_auction_now',
    (tx, w) => tx`select public.purge_deleted_auction_now(p_auction_id := ${A(w)}) r`,
    'deny deny deny deny deny rows',
  ),
  R(
    'rpc deleted_auction_ids (A)',
    (tx, w) => tx`select id from public.deleted_auction_ids() id where id = ${A(w)}`,
    'rows rows rows none deny rows',
  ),
  R('delete auction again', deleteAndList, 'rows none none none deny rows'),
];

describe('isolation matrix with auction A deleted', () => {
  beforeAll(async () => {
    await db.sql`update public.auctions set settings = settings - 'require_mfa_for_admins', deleted_at = now(),
      deleted_by = ${w.a.owner}, purge_after = now() + interval '30 days' where id = ${w.a.auctionId}`;
  });
  afterAll(async () => {
    await db.sql`update public.auctions set deleted_at = null, deleted_by = null, purge_after = null
      where id = ${w.a.auctionId}`;
  });

  it.each(deletedCases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const actual: string[] = [];
    for (const role of ROLES) actual.push(await outcome(role, c.run));
    expect(actual.map((o, i) => `${ROLES[i]}:${o}`)).toEqual(c.expect.split(' ').map((o, i) => `${ROLES[i]}:${o}`));
  });
});
