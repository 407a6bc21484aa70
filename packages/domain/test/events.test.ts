// Every event type of docs/events.md is written to the outbox once per change, with the documented data shape.
// Changes go through request-like transactions (authenticated role, JWT claims) and are committed, so the
// deferred submission and inspection events fire as they would in production.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { authMigrations } from '@auction-ops/auth-core';
import { domainMigrations } from '../src/index.js';
import { asUser, claimsFor, closeClients, sqlState } from './support/as-user.js';
import { buildWorld, type World } from './support/world.js';

let db: TestDatabase;
let w: World;
beforeAll(async () => {
  db = await createTestDatabase([authMigrations, domainMigrations]);
  w = await buildWorld(db.sql);
});
beforeEach(async () => {
  await db.sql`delete from public.event_outbox`;
});
afterAll(async () => {
  await closeClients();
  await db.drop();
});

const as = <T>(user: string, fn: Parameters<typeof asUser<T>>[2]) => asUser(db.requestUrl, claimsFor(user), fn);
/** The event types this file produced, for the comparison with the catalogue at its end. */
const seen = new Set<string>();
/**
 * The outbox, oldest first. Every event in it is held to its type's declaration (`public.event_types.fields`) both
 * ways, so no test here repeats an event's field list: a field the trigger adds, drops or changes the type of
 * without the declaration fails whichever test produced the event.
 */
async function events(): Promise<{ event_type: string; auction_id: string; data: any }[]> {
  const rows = (await db.sql`
    select o.event_type, o.auction_id, o.data, domain.event_data_mismatches(o.data, t.fields) as mismatches
      from public.event_outbox o join public.event_types t on t.name = o.event_type
     order by o.occurred_at, o.id`) as any[];
  for (const r of rows) {
    expect(r.mismatches, `${r.event_type} against its declaration`).toEqual([]);
    seen.add(r.event_type);
    delete r.mismatches;
  }
  return rows;
}
const keys = (o: object) => Object.keys(o).sort();
/** The sorted field names of a documented shape, written as one space-separated list. */
const fields = (...names: string[]) => names.join(' ').split(' ').sort();

describe('submission events', () => {
  it('submission.created once, at commit, with entries, from the RPC', async () => {
    const r = await as(
      w.a.member,
      (tx) => tx`select public.create_lot_submission_with_entries(
      p_location_id := ${w.ids.location},
      p_entries := ${tx.json([{ submission_type_id: w.ids.type, car_count: 7, image_url: 'https://i/x.jpg' }])},
      p_image_url := 'https://i/main.jpg') as s`,
    );
    const s = r[0].s;
    expect(s).toMatchObject({
      location_name: 'North lot',
      submitted_by: 'Member world-a',
      entry_count: 1,
      total_car_count: 7,
      image_url: 'https://i/main.jpg',
    });
    expect(s.entries).toEqual([{ type_name: 'Sold', car_count: 7, image_url: 'https://i/x.jpg' }]);
    expect(keys(s)).toEqual(
      fields(
        'id auction_id location_id location_name user_id submitted_by submitted_at entries entry_count',
        'total_car_count image_url',
      ),
    );
    const ev = await events();
    expect(ev.map((e) => e.event_type)).toEqual(['submission.created']);
    expect(ev[0].auction_id).toBe(w.a.auctionId);
    expect(ev[0].data.entries).toEqual([
      { type_id: w.ids.type, type_name: 'Sold', car_count: 7, image_url: 'https://i/x.jpg' },
    ]);
    expect(ev[0].data.total_car_count).toBe(7);
  });

  it('submission.created also when the submission and its entries are posted in one transaction', async () => {
    await as(w.a.member, async (tx) => {
      const [s] = await tx`insert into public.lot_submissions (auction_id, location_id)
          values (${w.a.auctionId}, ${w.ids.location}) returning id`;
      await tx`insert into public.lot_submission_entries (submission_id, submission_type_id, car_count)
        values (${s.id}, ${w.ids.type}, 2), (${s.id}, ${w.ids.type}, 3)`;
    });
    const ev = await events();
    expect(ev.map((e) => e.event_type)).toEqual(['submission.created']);
    expect(ev[0].data.total_car_count).toBe(5);
  });

  it('submission.updated once per edit', async () => {
    await as(
      w.a.member,
      (tx) => tx`update public.lot_submissions set notes = 'recount' where id = ${w.ids.submission}`,
    );
    await as(
      w.a.member,
      (tx) => tx`update public.lot_submissions set notes = 'recount' where id = ${w.ids.submission}`,
    ); // no change
    await as(w.a.admin, (tx) => tx`update public.lot_submission_entries set car_count = 6 where id = ${w.ids.entry}`);
    const ev = await events();
    expect(ev.map((e) => e.event_type)).toEqual(['submission.updated', 'submission.updated']);
    expect(ev[1].data.total_car_count).toBe(6);
    expect(ev[1].data.updated_by).toEqual({ id: w.a.admin, name: 'Admin world-a' });
  });

  it('the RPC refuses unconfigured types, negative counts, no entries, inactive locations, outsiders', async () => {
    const submit = (user: string, entries: unknown[]) =>
      sqlState(
        as(
          user,
          (tx) => tx`select public.create_lot_submission_with_entries(
            p_location_id := ${w.ids.location}, p_entries := ${tx.json(entries as never)})`,
        ),
      );
    expect(await submit(w.a.member, [{ submission_type_id: w.ids.otherType, car_count: 1 }])).toBe('P0001');
    expect(await submit(w.a.member, [{ submission_type_id: w.ids.type, car_count: -1 }])).toBe('22023');
    expect(await submit(w.a.member, [])).toBe('22023');
    expect(await submit(w.b.owner, [{ submission_type_id: w.ids.type, car_count: 1 }])).toBe('42501');
    await db.sql`update public.locations set is_active = false where id = ${w.ids.location}`;
    try {
      expect(await submit(w.a.member, [{ submission_type_id: w.ids.type, car_count: 1 }])).toBe('P0001');
    } finally {
      await db.sql`update public.locations set is_active = true where id = ${w.ids.location}`;
    }
    expect(await events()).toEqual([]);
  });
});

describe('inspection events', () => {
  it('inspection.created then inspection.defect_added, as the app posts them', async () => {
    const [i] = await as(
      w.a.member,
      (tx) => tx`insert into public.quality_inspections (auction_id, location_id, vin_number, barcode)
      values (${w.a.auctionId}, ${w.ids.location}, '2hgfg12678h500001', 'BC-9') returning id, vin_number`,
    );
    expect(i.vin_number).toBe('2HGFG12678H500001');
    await as(
      w.a.member,
      (tx) =>
        tx`insert into public.quality_defects (inspection_id, category_id, notes)
          values (${i.id}, ${w.ids.category}, 'hood')`,
    );
    const ev = await events();
    expect(ev.map((e) => e.event_type)).toEqual(['inspection.created', 'inspection.defect_added']);
    expect(ev[0].data).toMatchObject({ inspector_name: 'Member world-a', defect_count: 0, defects: [] });
    expect(ev[1].data).toMatchObject({
      inspection_id: i.id,
      category: 'Dent',
      notes: 'hood',
      vin_number: '2HGFG12678H500001',
    });
  });

  it('inspection.created carries defects written in the same transaction', async () => {
    await as(w.a.member, async (tx) => {
      const [i] = await tx`insert into public.quality_inspections (auction_id, location_id, vin_number, barcode)
        values (${w.a.auctionId}, ${w.ids.location}, '2HGFG12678H500002', 'BC-10') returning id`;
      await tx`insert into public.quality_defects (inspection_id, category_id, notes)
        values (${i.id}, ${w.ids.category}, 'roof')`;
    });
    const ev = await events();
    expect(ev.map((e) => e.event_type).sort()).toEqual(['inspection.created', 'inspection.defect_added']);
    const created = ev.find((e) => e.event_type === 'inspection.created')!;
    expect(created.data).toMatchObject({ defect_count: 1, defects: [{ category: 'Dent', notes: 'roof' }] });
  });

  it('a VIN with I, O or Q or of the wrong length is refused', async () => {
    for (const vin of ['1HGCM82633A00435I', '1HGCM82633A00435']) {
      expect(
        await sqlState(
          as(
            w.a.member,
            (tx) => tx`insert into public.quality_inspections (auction_id, location_id, vin_number)
        values (${w.a.auctionId}, ${w.ids.location}, ${vin})`,
          ),
        ),
      ).toBe('23514');
    }
  });
});

describe('problem events', () => {
  it('problem.created and problem.assigned on a new assigned report', async () => {
    await as(
      w.a.member,
      (tx) => tx`insert into public.problem_reports (auction_id, issue_name, area, location_id, assigned_to)
      values (${w.a.auctionId}, 'Broken gate', 'Entrance', ${w.ids.location}, ${w.a.admin})`,
    );
    const ev = await events();
    expect(ev.map((e) => e.event_type)).toEqual(['problem.created', 'problem.assigned']);
    expect(ev[0].data).toMatchObject({
      issue_name: 'Broken gate',
      status: 'open',
      prepared_by: { id: w.a.member, name: 'Member world-a' },
      assigned_to: { id: w.a.admin, name: 'Admin world-a' },
    });
    expect(ev[1].data).toMatchObject({
      previous_assigned_to: null,
      assigned_by: { id: w.a.member, name: 'Member world-a' },
    });
  });

  it('problem.status_changed in its documented shape; forbidden moves P0001; reopening needs an admin', async () => {
    await as(
      w.a.member,
      (tx) => tx`update public.problem_reports set status = 'in_progress' where id = ${w.ids.problem}`,
    );
    await as(w.a.member, (tx) => tx`update public.problem_reports set status = 'closed' where id = ${w.ids.problem}`);
    expect(
      await sqlState(
        as(
          w.a.member,
          (tx) => tx`update public.problem_reports set status = 'in_progress' where id = ${w.ids.problem}`,
        ),
      ),
    ).toBe('P0001');
    expect(
      await sqlState(
        as(w.a.member, (tx) => tx`update public.problem_reports set status = 'open' where id = ${w.ids.problem}`),
      ),
    ).toBe('42501');
    await as(w.a.admin, (tx) => tx`update public.problem_reports set status = 'open' where id = ${w.ids.problem}`);
    const ev = await events();
    expect(ev.map((e) => [e.event_type, e.data.previous_status, e.data.new_status])).toEqual([
      ['problem.status_changed', 'open', 'in_progress'],
      ['problem.status_changed', 'in_progress', 'closed'],
      ['problem.status_changed', 'closed', 'open'],
    ]);
    expect(ev[0].data).toMatchObject({
      prepared_by: { id: w.a.member, name: 'Member world-a' },
      assigned_to: null,
      action_count: 1,
      completed_action_count: 0,
      location_name: 'North lot',
    });
  });

  it('problem.assigned on reassignment, problem.action_completed once when an action completes', async () => {
    await as(
      w.a.admin,
      (tx) => tx`update public.problem_reports set assigned_to = ${w.a.owner} where id = ${w.ids.problem}`,
    );
    await as(w.a.member, (tx) => tx`update public.problem_actions set status = 'complete' where id = ${w.ids.action}`);
    await as(
      w.a.member,
      (tx) => tx`update public.problem_actions set countermeasure = 'magnet' where id = ${w.ids.action}`,
    );
    const ev = await events();
    expect(ev.map((e) => e.event_type)).toEqual(['problem.assigned', 'problem.action_completed']);
    expect(ev[1].data).toMatchObject({
      id: w.ids.action,
      problem_id: w.ids.problem,
      action_count: 1,
      completed_action_count: 1,
    });
    expect(ev[1].data.completed_at).not.toBeNull();
    const [v] = await as(
      w.a.member,
      (tx) => tx`select completed_action_count from public.active_problem_reports where id = ${w.ids.problem}`,
    );
    expect(v.completed_action_count).toBe(1);
  });

  it('a report cannot be assigned to someone outside the auction', async () => {
    expect(
      await sqlState(
        as(
          w.a.admin,
          (tx) => tx`update public.problem_reports set assigned_to = ${w.b.owner} where id = ${w.ids.problem}`,
        ),
      ),
    ).toBe('P0001');
  });
});

describe('chat events', () => {
  it('channel.created, message.created with mentions, message.edited, message.deleted, channel.archived', async () => {
    const [c] = await as(
      w.a.admin,
      (tx) =>
        tx`insert into public.channels (auction_id, name, description) values (${w.a.auctionId}, 'yard', 'Yard crew')
          returning id`,
    );
    const [m] = await as(
      w.a.member,
      (tx) => tx`insert into public.messages (auction_id, channel_id, content, message_type)
      values (${w.a.auctionId}, ${c.id}, 'ping @Admin world-a and @owner', 'text') returning id, mentions`,
    );
    expect([...m.mentions].sort()).toEqual([w.a.admin, w.a.owner].sort());
    const [reply] = await as(
      w.a.admin,
      (tx) => tx`insert into public.messages (auction_id, channel_id, content, parent_message_id)
      values (${w.a.auctionId}, ${c.id}, 'on it', ${m.id}) returning id`,
    );
    await as(
      w.a.member,
      (tx) => tx`update public.messages set content = 'ping all', is_edited = true where id = ${m.id}`,
    );
    await as(w.a.admin, (tx) => tx`update public.messages set is_deleted = true where id = ${reply.id}`);
    await as(w.a.admin, (tx) => tx`update public.channels set is_archived = true where id = ${c.id}`);
    const ev = await events();
    expect(ev.map((e) => e.event_type)).toEqual([
      'channel.created',
      'message.created',
      'message.created',
      'message.edited',
      'message.deleted',
      'channel.archived',
    ]);
    expect(ev[1].data).toMatchObject({
      channel_name: 'yard',
      sender_name: 'Member world-a',
      is_thread_reply: false,
      parent_message_id: null,
    });
    expect(ev[2].data).toMatchObject({ is_thread_reply: true, parent_message_id: m.id });
    expect(ev[3].data).toMatchObject({ previous_content: 'ping @Admin world-a and @owner', content: 'ping all' });
    expect(ev[4].data).toMatchObject({ id: reply.id, deleted_by: { id: w.a.admin, name: 'Admin world-a' } });
    const [deleted] = await db.sql`select content, is_deleted, deleted_at from public.messages where id = ${reply.id}`;
    expect(deleted.content).toBe('');
    expect(deleted.deleted_at).not.toBeNull();
  });

  it("a team member cannot edit someone else's message", async () => {
    const [m] = await as(
      w.a.admin,
      (tx) =>
        tx`insert into public.messages (auction_id, channel_id, content)
          values (${w.a.auctionId}, ${w.ids.channel}, 'admin says') returning id`,
    );
    const rows = await as(
      w.a.member,
      (tx) => tx`update public.messages set content = 'hacked' where id = ${m.id} returning id`,
    );
    expect(rows).toHaveLength(0);
  });
});

describe('member events', () => {
  it('member.invited, member.joined, member.role_changed, member.removed', async () => {
    const newbie = (
      await db.sql`insert into auth.users (email, raw_user_meta_data)
        values ('newbie@x.test', '{"full_name":"New Bie"}') returning id`
    )[0].id;
    const [inv] = await as(
      w.a.admin,
      (tx) =>
        tx`select public.invite_user_to_auction(p_auction_id := ${w.a.auctionId}, p_email := 'NewBie@x.test',
          p_role := 'team_member') r`,
    );
    expect(keys(inv.r)).toEqual(['expires_at', 'invitation_id', 'token']);
    expect(
      await sqlState(as(w.a.member, (tx) => tx`select public.accept_auction_invite(p_token := ${inv.r.token})`)),
    ).toBe('42501');
    const [acc] = await as(newbie, (tx) => tx`select public.accept_auction_invite(p_token := ${inv.r.token}) r`);
    expect(acc.r).toMatchObject({ auction_id: w.a.auctionId, role: 'team_member' });
    expect(await sqlState(as(newbie, (tx) => tx`select public.accept_auction_invite(p_token := ${inv.r.token})`))).toBe(
      'P0001',
    );
    const [changed] = await as(
      w.a.admin,
      (tx) =>
        tx`select * from public.change_member_role(p_auction_id := ${w.a.auctionId}, p_user_id := ${newbie},
          p_new_role := 'admin')`,
    );
    expect(changed).toMatchObject({ user_id: newbie, role: 'admin', id: acc.r.member_id });
    const [rm] = await as(
      newbie,
      (tx) => tx`select public.remove_auction_member(p_auction_id := ${w.a.auctionId}, p_user_id := ${newbie}) r`,
    );
    expect(rm.r).toEqual({ removed: true });
    const ev = await events();
    expect(ev.map((e) => e.event_type)).toEqual([
      'member.invited',
      'member.joined',
      'member.role_changed',
      'member.removed',
    ]);
    expect(ev[1].data).toEqual({
      user_id: newbie,
      email: 'newbie@x.test',
      full_name: 'New Bie',
      role: 'team_member',
      invited_by: { id: w.a.admin, name: 'Admin world-a' },
      joined_at: expect.any(String),
    });
    expect(ev[2].data).toMatchObject({ previous_role: 'team_member', new_role: 'admin' });
    expect(ev[0].data.token).toBeUndefined();
  });

  it('expired, revoked and link invitations', async () => {
    const u = (await db.sql`insert into auth.users (email) values ('linky@x.test') returning id`)[0].id;
    const [link] = await as(
      w.a.owner,
      (tx) =>
        tx`select public.invite_user_to_auction(p_auction_id := ${w.a.auctionId}, p_email := null,
          p_role := 'team_member') r`,
    );
    const [exp] = await as(
      w.a.owner,
      (tx) =>
        tx`select public.invite_user_to_auction(p_auction_id := ${w.a.auctionId}, p_email := 'linky@x.test',
          p_role := 'admin') r`,
    );
    await db.sql`update public.auction_invitations set expires_at = now() - interval '1 minute'
      where id = ${exp.r.invitation_id}`;
    expect(await sqlState(as(u, (tx) => tx`select public.accept_auction_invite(p_token := ${exp.r.token})`))).toBe(
      'P0001',
    );
    expect(
      await sqlState(
        as(
          w.a.admin,
          (tx) =>
            tx`select public.invite_user_to_auction(p_auction_id := ${w.a.auctionId}, p_email := 'x@x.test',
              p_role := 'owner')`,
        ),
      ),
    ).toBe('42501');
    const [acc] = await as(u, (tx) => tx`select public.accept_auction_invite(p_token := ${link.r.token}) r`);
    expect(acc.r.role).toBe('team_member');
  });

  it('ownership transfer keeps one owner and demotes the old owner to admin; the last owner cannot leave', async () => {
    expect(
      await sqlState(
        as(
          w.b.owner,
          (tx) => tx`select public.remove_auction_member(p_auction_id := ${w.b.auctionId}, p_user_id := ${w.b.owner})`,
        ),
      ),
    ).toBe('P0001');
    await as(
      w.b.owner,
      (tx) =>
        tx`select public.transfer_auction_ownership(p_auction_id := ${w.b.auctionId}, p_new_owner_id := ${w.b.member})`,
    );
    const roles = await db.sql`select user_id, role from public.auction_members where auction_id = ${w.b.auctionId}
        and user_id in (${w.b.owner}, ${w.b.member})`;
    expect(Object.fromEntries(roles.map((r) => [r.user_id, r.role]))).toEqual({
      [w.b.owner]: 'admin',
      [w.b.member]: 'owner',
    });
    const ev = await events();
    expect(ev.map((e) => [e.event_type, e.data.new_role])).toEqual([
      ['member.role_changed', 'owner'],
      ['member.role_changed', 'admin'],
    ]);
  });
});

describe('auction lifecycle events (domain/0031)', () => {
  it('auction.deleted on an owner delete, auction.undeleted on undo, auction.purged after the cascade', async () => {
    const [c] =
      await db.sql`insert into public.auctions (name, slug, created_by) values ('Doomed', 'doomed-ev', ${w.b.owner})
      returning id`;
    const id = c!.id as string;
    await as(w.b.owner, (tx) => tx`delete from public.auctions where id = ${id}`);
    await as(w.b.owner, (tx) => tx`select public.restore_deleted_auction(p_auction_id := ${id})`);
    await as(w.b.owner, (tx) => tx`delete from public.auctions where id = ${id}`);
    let ev = await events();
    expect(ev.map((e) => [e.event_type, e.auction_id])).toEqual([
      ['auction.deleted', id],
      ['auction.undeleted', id],
      ['auction.deleted', id],
    ]);
    expect(ev[0]!.data).toMatchObject({ id, slug: 'doomed-ev', deleted_by: { id: w.b.owner } });
    expect(ev[1]!.data).toMatchObject({ id, undeleted_by: { id: w.b.owner } });
    // Not yet due; then due (the job passes its `now`).
    await expect(db.sql`select * from domain.purge_auction(${id}::uuid)`).rejects.toMatchObject({ code: 'P0001' });
    await db.sql`select * from domain.purge_auction(${id}::uuid, now() + interval '31 days')`;
    ev = await events();
    expect(ev.map((e) => e.event_type)).toEqual(['auction.purged']);
    expect(ev[0]!.data).toMatchObject({ id, slug: 'doomed-ev', objects_removed: 0 });
    expect(await db.sql`select 1 from public.auctions where id = ${id}`).toHaveLength(0);
  });
});

/** The event type argument of an emit_event call in a function's source. */
const EMIT_CALL = String.raw`emit_event\(\s*[^,]+,\s*([^,]+),`;

describe('the event catalogue (public.event_types)', () => {
  it('names exactly the event types the database emits, each as a literal of an emit_event call', async () => {
    const calls = await db.sql<{ arg: string }[]>`
      select (regexp_matches(p.prosrc, ${EMIT_CALL}, 'g'))[1] as arg
        from pg_proc p where p.prosrc like '%emit_event(%' and p.proname <> 'emit_event'`;
    // A computed type would hide from this check: every call names its event.
    expect(calls.filter((c) => !/^'[a-z_]+\.[a-z_]+'$/.test(c.arg.trim()))).toEqual([]);
    const emitted = new Set(calls.map((c) => c.arg.trim().slice(1, -1)));
    const catalogued = (await db.sql<{ name: string }[]>`select name from public.event_types`).map((r) => r.name);
    expect([...emitted].sort()).toEqual([...catalogued].sort());
  });

  it("declares every type this file's changes produced, each with a sample that conforms", async () => {
    const catalogue = await db.sql<{ name: string; mismatches: string[] }[]>`
      select name, domain.event_data_mismatches(sample, fields) as mismatches from public.event_types order by name`;
    expect(catalogue.map((c) => c.name)).toEqual([...seen].sort());
    for (const { name, mismatches } of catalogue) expect(mismatches, name).toEqual([]);
  });

  it('holds data to a declaration both ways: undeclared, missing, null and mistyped fields are named', async () => {
    const declared = { id: 'uuid', at: 'timestamp', by: 'user?', tags: ['uuid'], lines: [{ n: 'integer' }] };
    const ok = {
      id: '00000000-0000-4000-8000-000000000001',
      at: '2026-03-01T14:05:09.123456+00:00',
      by: null,
      tags: [],
      lines: [{ n: 3 }],
    };
    const check = async (data: object) =>
      (
        await db.sql<{ m: string[] }[]>`
        select domain.event_data_mismatches(${db.sql.json(data as never)}, ${db.sql.json(declared as never)}) as m`
      )[0].m;
    expect(await check(ok)).toEqual([]);
    expect(await check({ ...ok, extra: 1 })).toEqual(['extra: not declared']);
    const { at: _dropped, ...withoutAt } = ok;
    expect(await check(withoutAt)).toEqual(['at: declared but missing']);
    expect(await check({ ...ok, id: null })).toEqual(['id: null, declared uuid']);
    expect(await check({ ...ok, by: { id: ok.id }, tags: ['x'], lines: [{ n: 1.5 }] })).toEqual([
      'by: not user',
      'lines[].n: not integer',
      'tags[]: not uuid',
    ]);
  });

  it('refuses an event the catalogue does not name, with the change that emitted it', async () => {
    await expect(db.sql`select domain.emit_event(${w.a.auctionId}, 'gate.opened', '{}')`).rejects.toMatchObject({
      code: '23503',
    });
    expect(await events()).toEqual([]);
  });
});
