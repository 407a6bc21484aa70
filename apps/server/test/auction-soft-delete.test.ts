// Delete with a way back (domain/0031-auction-soft-delete.sql) end to end over supabase-js: an owner's delete marks
// the auction and answers with it (domain/0034, the REST engine's softDeletes), its admins and members are refused
// with 42501, members lose it (reads empty, writes refused in the data interface's shape), only its owners and
// super admins undo it, and the purge (the job's function with a later `now`, or a super admin's purge now through
// the server's worker) removes its rows and objects and emits auction.purged, leaving the other auction alone.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeDueAuctions } from '../src/auctions/auction-purge.js';
import { startTestServer, type SignedUpUser, type TestServer } from './support/test-server.js';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);
const DAY = 86_400_000;

let t: TestServer;
let owner: SignedUpUser;
let admin: SignedUpUser;
let member: SignedUpUser;
let otherOwner: SignedUpUser;
let root: SignedUpUser;
let a: string;
let b: string;
let channelA: string;

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function createAuction(user: SignedUpUser, slug: string): Promise<string> {
  const { data, error } = await user.client.from('auctions').insert({ name: slug, slug }).select('id').single();
  if (error) throw error;
  return data.id as string;
}

/** Uploads a photo under the user's folder and names it as the auction's logo; returns the object's version. */
async function brandWithPhoto(user: SignedUpUser, auctionId: string, file: string): Promise<string> {
  const path = `${user.id}/${file}`;
  const up = await user.client.storage.from('lot-images').upload(path, PNG, { contentType: 'image/png' });
  if (up.error) throw up.error;
  const url = user.client.storage.from('lot-images').getPublicUrl(path).data.publicUrl;
  const br = await user.client.from('auction_branding').upsert({ auction_id: auctionId, logo_url: url });
  if (br.error) throw br.error;
  const [row] = await t.db.sql`select version from storage.objects where bucket_id = 'lot-images' and name = ${path}`;
  return row!.version as string;
}

const events = async (auctionId: string) =>
  (
    await t.db.sql<{ event_type: string; data: Record<string, unknown> }[]>`
      select event_type, data from public.event_outbox where auction_id = ${auctionId} and event_type like 'auction.%'
       order by occurred_at`
  ).map((e) => [e.event_type, e.data] as const);

beforeAll(async () => {
  t = await startTestServer({ AUTH_RATE_LIMIT_SIGN_UP: '100', WEBHOOK_DISPATCHER_ENABLED: 'false' });
  owner = await t.signUp('owner@del.test', 'Olive Owner');
  admin = await t.signUp('admin@del.test', 'Adam Admin');
  member = await t.signUp('member@del.test', 'Mia Member');
  otherOwner = await t.signUp('other@del.test', 'Otto Other');
  root = await t.signUp('root@del.test', 'Root');
  await t.db.sql`insert into public.super_admins (user_id) values (${root.id})`;
  a = await createAuction(owner, 'doomed');
  b = await createAuction(otherOwner, 'bystander');
  await t.db.sql`insert into public.auction_members (auction_id, user_id, role)
    values (${a}, ${admin.id}, 'admin'), (${a}, ${member.id}, 'team_member')`;
  const ch = await owner.client.from('channels').insert({ auction_id: a, name: 'yard' }).select('id').single();
  channelA = ch.data!.id;
  const msg = await member.client.from('messages').insert({ auction_id: a, channel_id: channelA, content: 'hi' });
  expect(msg.error).toBeNull();
  await owner.client.from('locations').insert({ auction_id: a, name: 'North lot' });
});
afterAll(async () => {
  await t?.stop();
});

describe('deleting an auction', () => {
  it('is refused to its admin and team member with 42501; to others it is no row (nothing is marked)', async () => {
    for (const user of [admin, member]) {
      const res = await user.client.from('auctions').delete().eq('id', a).select();
      expect([res.status, res.error?.code, res.data]).toEqual([403, '42501', null]);
      expect(Object.keys(res.error!).sort()).toEqual(['code', 'details', 'hint', 'message']);
      expect((await user.client.from('auctions').delete().eq('id', a)).status).toBe(403);
    }
    const stranger = await otherOwner.client.from('auctions').delete({ count: 'exact' }).eq('id', a).select();
    expect([stranger.status, stranger.error, stranger.data, stranger.count]).toEqual([200, null, [], 0]);
    const [row] = await t.db.sql`select deleted_at from public.auctions where id = ${a}`;
    expect(row!.deleted_at).toBeNull();
  });

  it("an owner's supabase-js delete marks it, with the grace period, and emits auction.deleted", async () => {
    const res = await owner.client.from('auctions').delete().eq('id', a);
    expect([res.error, res.status]).toEqual([null, 204]);
    const [row] = await t.db.sql`select deleted_by, extract(epoch from purge_after - deleted_at)::int as grace
      from public.auctions where id = ${a}`;
    expect(row).toEqual({ deleted_by: owner.id, grace: 30 * 86_400 });
    const ev = await events(a);
    expect(ev.map((e) => e[0])).toEqual(['auction.deleted']);
    expect(ev[0]![1]).toMatchObject({ id: a, slug: 'doomed', deleted_by: { id: owner.id, name: 'Olive Owner' } });
  });

  it('hides it from every member: reads are empty, writes are refused in the data shape', async () => {
    for (const user of [owner, admin, member, root]) {
      expect((await user.client.from('auctions').select('id').eq('id', a)).data).toEqual([]);
      expect((await user.client.from('messages').select('id').eq('auction_id', a)).data).toEqual([]);
      expect((await user.client.from('locations').select('id').eq('auction_id', a)).data).toEqual([]);
      expect((await user.client.from('auction_members').select('id').eq('auction_id', a)).data).toEqual([]);
    }
    const write = await member.client.from('messages').insert({ auction_id: a, channel_id: channelA, content: 'x' });
    expect(write.status).toBe(403);
    expect(Object.keys(write.error!).sort()).toEqual(['code', 'details', 'hint', 'message']);
    expect(write.error!.code).toBe('42501');
    const upd = await owner.client.from('auctions').update({ name: 'back?' }).eq('id', a).select();
    expect(upd.data).toEqual([]);
    const invite = await owner.client.rpc('invite_user_to_auction', {
      p_auction_id: a,
      p_email: 'new@del.test',
      p_role: 'team_member',
    });
    expect(invite.error?.code).toBe('42501');
    // Still whole underneath.
    const [n] = await t.db.sql`select (select count(*) from public.messages where auction_id = ${a})::int as messages`;
    expect(n!.messages).toBe(1);
  });

  it('is listed to its owners and super admins only', async () => {
    const mine = await owner.client.rpc('list_deleted_auctions');
    expect(mine.data).toEqual([
      expect.objectContaining({ id: a, slug: 'doomed', deleted_by: owner.id, deleted_by_name: 'Olive Owner' }),
    ]);
    expect((await root.client.rpc('list_deleted_auctions')).data.map((r: { id: string }) => r.id)).toEqual([a]);
    for (const user of [admin, member, otherOwner])
      expect((await user.client.rpc('list_deleted_auctions')).data).toEqual([]);
  });

  it('cannot be undone by its admin, its team member or the owner of another auction', async () => {
    for (const user of [admin, member, otherOwner]) {
      const res = await user.client.rpc('restore_deleted_auction', { p_auction_id: a });
      expect(res.error?.code).toBe('42501');
    }
  });

  it('is undone by its owner, whole, with auction.undeleted', async () => {
    const res = await owner.client.rpc('restore_deleted_auction', { p_auction_id: a });
    expect(res.error).toBeNull();
    expect(res.data).toMatchObject({ id: a, deleted_at: null, purge_after: null });
    expect((await member.client.from('messages').select('content').eq('auction_id', a)).data).toEqual([
      { content: 'hi' },
    ]);
    expect((await member.client.from('auctions').select('id').eq('id', a)).data).toEqual([{ id: a }]);
    expect((await events(a)).map((e) => e[0])).toEqual(['auction.deleted', 'auction.undeleted']);
    const again = await owner.client.rpc('restore_deleted_auction', { p_auction_id: a });
    expect(again.error?.code).toBe('P0002');
  });
});

describe('purging', () => {
  it('waits for the grace period, then removes the rows and objects and emits auction.purged; B is untouched', async () => {
    const versionA = await brandWithPhoto(owner, a, 'logo-a.png');
    const versionB = await brandWithPhoto(otherOwner, b, 'logo-b.png');
    expect((await owner.client.from('auctions').delete().eq('id', a)).error).toBeNull();
    const removed: string[] = [];
    const purge = (days: number) =>
      purgeDueAuctions({
        sql: t.db.sql,
        now: new Date(Date.now() + days * DAY),
        removeKeys: async (keys) => void removed.push(...keys),
      });
    expect(await purge(29)).toEqual([]);
    expect(await purge(31)).toEqual([{ id: a, objects: 1 }]);
    expect(removed).toEqual([`lot-images/${versionA}`]);
    const [left] = await t.db.sql`select
      (select count(*) from public.auctions where id = ${a})
      + (select count(*) from public.auction_members where auction_id = ${a})
      + (select count(*) from public.messages where auction_id = ${a})
      + (select count(*) from public.channels where auction_id = ${a})
      + (select count(*) from public.locations where auction_id = ${a})
      + (select count(*) from public.auction_branding where auction_id = ${a})
      + (select count(*) from storage.objects where version = ${versionA}) as n`;
    expect(Number(left!.n)).toBe(0);
    const ev = await events(a);
    expect(ev.map((e) => e[0])).toEqual(['auction.purged']);
    expect(ev[0]![1]).toMatchObject({ id: a, slug: 'doomed', objects_removed: 1 });
    // The other auction and its object.
    expect((await otherOwner.client.from('auction_branding').select('auction_id').eq('auction_id', b)).data).toEqual([
      { auction_id: b },
    ]);
    const [objB] = await t.db.sql`select 1 from storage.objects where version = ${versionB}`;
    expect(objB).toBeDefined();
  });

  it('purge now: super admins only; the server worker purges at once, bytes included', async () => {
    const c = await createAuction(owner, 'purge-now');
    const version = await brandWithPhoto(owner, c, 'logo-c.png');
    const bytes = join(t.dataDir, 'storage', 'objects', 'lot-images', version.slice(0, 2), version);
    expect(existsSync(bytes)).toBe(true);
    expect((await owner.client.from('auctions').delete().eq('id', c)).error).toBeNull();
    const byOwner = await owner.client.rpc('purge_deleted_auction_now', { p_auction_id: c });
    expect(byOwner.error?.code).toBe('42501');
    const byRoot = await root.client.rpc('purge_deleted_auction_now', { p_auction_id: c });
    expect(byRoot.error).toBeNull();
    await until('the purge of c', async () => {
      const [row] = await t.db.sql`select 1 from public.auctions where id = ${c}`;
      return row ? undefined : true;
    });
    await until('the bytes of c to go', async () => (existsSync(bytes) ? undefined : true));
    expect((await events(c)).map((e) => e[0])).toEqual(['auction.purged']);
  });
});

describe('what a delete answers', () => {
  const marked = async (id: string) =>
    (await t.db.sql`select deleted_at is not null as m from public.auctions where id = ${id}`)[0]!.m as boolean;

  it("the owner's .delete().select() answers the marked auction, counted", async () => {
    const id = await createAuction(owner, 'answered');
    const res = await owner.client.from('auctions').delete({ count: 'exact' }).eq('id', id).select();
    expect([res.status, res.error, res.count]).toEqual([200, null, 1]);
    expect(res.data).toEqual([
      expect.objectContaining({ id, slug: 'answered', deleted_by: owner.id, deleted_at: expect.any(String) }),
    ]);
    const [row] = res.data!;
    expect(Date.parse(row.purge_after) - Date.parse(row.deleted_at)).toBe(30 * DAY);
    expect(await marked(id)).toBe(true);
  });

  it('a delete matching two auctions the owner owns marks both', async () => {
    const ids = [await createAuction(owner, 'twin-1'), await createAuction(owner, 'twin-2')];
    const res = await owner.client.from('auctions').delete().in('id', ids).select('id');
    expect(res.error).toBeNull();
    expect(res.data!.map((r) => r.id).sort()).toEqual([...ids].sort());
    expect([await marked(ids[0]!), await marked(ids[1]!)]).toEqual([true, true]);
  });

  it('a deleted auction is invisible: deleting it again answers no rows', async () => {
    const id = await createAuction(owner, 'twice');
    expect((await owner.client.from('auctions').delete().eq('id', id)).status).toBe(204);
    const again = await owner.client.from('auctions').delete().eq('id', id).select();
    expect([again.status, again.error, again.data]).toEqual([200, null, []]);
  });

  it('a super admin and the service role delete as owners do; the service role again finds it done', async () => {
    const byRoot = await createAuction(owner, 'by-root');
    const res = await root.client.from('auctions').delete().eq('id', byRoot).select('id, deleted_by');
    expect([res.error, res.data]).toEqual([null, [{ id: byRoot, deleted_by: root.id }]]);
    const service = t.client(t.serviceRoleKey);
    const byService = await createAuction(owner, 'by-service');
    const s1 = await service.from('auctions').delete().eq('id', byService).select('id, purge_after');
    expect([s1.error, s1.data?.map((r) => r.id)]).toEqual([null, [byService]]);
    expect(s1.data![0]!.purge_after).toEqual(expect.any(String));
    // The service role still reads deleted auctions: its repeated delete changes nothing and answers no row.
    const s2 = await service.from('auctions').delete({ count: 'exact' }).in('id', [byService, byRoot]).select();
    expect([s2.status, s2.error, s2.data, s2.count]).toEqual([200, null, [], 0]);
  });

  it('two deletes racing for one auction: one marks and answers it, the other answers no row', async () => {
    const id = await createAuction(owner, 'raced');
    // Both requests read the auction live, then wait on its row lock in delete_auction until this one goes.
    const holder = await t.db.sql.reserve();
    try {
      await holder`begin`;
      await holder`select 1 from public.auctions where id = ${id} for update`;
      // supabase-js sends a request when it is awaited: `then` sends both now.
      const racing = [1, 2].map(() =>
        owner.client
          .from('auctions')
          .delete()
          .eq('id', id)
          .select('id')
          .then((r) => r),
      );
      await until('both deletes waiting on the row lock', async () => {
        const [r] = await t.db.sql`select count(*)::int as n from pg_stat_activity
          where wait_event_type = 'Lock' and query like '%delete_auction%'`;
        return r!.n === 2 ? true : undefined;
      });
      await holder`commit`;
      const answers = await Promise.all(racing);
      expect(answers.map((r) => [r.status, r.error])).toEqual([
        [200, null],
        [200, null],
      ]);
      expect(answers.map((r) => r.data!.length).sort()).toEqual([0, 1]);
      expect(await marked(id)).toBe(true);
    } finally {
      holder.release();
    }
  });
});
