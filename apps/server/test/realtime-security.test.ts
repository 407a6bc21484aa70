// Who receives what over realtime: row-level security per subscriber (other auction, team member's locations),
// a failing policy isolated to its subscriber, private channels, token expiry and refresh, and the gate.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import type { TestServer } from './support/test-server.js';
import {
  accessTokenFor,
  arrangeAuction,
  signUp,
  sleep,
  startRealtimeServer,
  subscribed,
  until,
  type RealtimeUser,
} from './realtime.fixture.js';

type Row = Record<string, unknown>;
let server: TestServer;
let owner: RealtimeUser;
let member: RealtimeUser;
let outsider: RealtimeUser;
let auction: { auctionId: string; channelId: string };
const clients: SupabaseClient[] = [];

beforeAll(async () => {
  server = await startRealtimeServer();
  // A table whose SELECT policy raises for one user: that user's check fails, nobody else's may.
  await server.db.sql.unsafe(`
    create function public.rt_probe_visible() returns boolean language plpgsql stable as $$
    begin
      if auth.uid() = (select id from public.users where email like 'fragile-%') then
        raise exception 'policy failure for this subscriber';
      end if;
      return true;
    end $$;
    create table public.rt_probe (id uuid primary key default gen_random_uuid(), note text not null);
    alter table public.rt_probe enable row level security;
    alter table public.rt_probe replica identity full;
    create policy rt_probe_select on public.rt_probe for select to authenticated using (public.rt_probe_visible());
    grant select on public.rt_probe to authenticated;
    alter publication auction_ops_realtime add table public.rt_probe;
    -- A policy that raises for one user on one row only (note 'boom'): that user still sees the other rows.
    create function public.rt_row_visible(note text) returns boolean language plpgsql stable as $$
    begin
      if note = 'boom' and auth.uid() = (select id from public.users where email like 'touchy-%') then
        raise exception 'policy failure for this row and subscriber';
      end if;
      return true;
    end $$;
    create table public.rt_rows (id uuid primary key default gen_random_uuid(), note text not null);
    alter table public.rt_rows enable row level security;
    alter table public.rt_rows replica identity full;
    create policy rt_rows_select on public.rt_rows for select to authenticated using (public.rt_row_visible(note));
    grant select on public.rt_rows to authenticated;
    alter publication auction_ops_realtime add table public.rt_rows;
    -- Rows only a token with the claim tier = gold may see.
    create table public.rt_gold (id uuid primary key default gen_random_uuid(), note text not null);
    alter table public.rt_gold enable row level security;
    alter table public.rt_gold replica identity full;
    create policy rt_gold_select on public.rt_gold for select to authenticated
      using (coalesce(auth.jwt() ->> 'tier', '') = 'gold');
    grant select on public.rt_gold to authenticated;
    alter publication auction_ops_realtime add table public.rt_gold;`);
  owner = await signUp(server, 'owner');
  member = await signUp(server, 'member');
  outsider = await signUp(server, 'outsider');
  auction = await arrangeAuction(server, [
    [owner, 'owner'],
    [member, 'team_member'],
  ]);
  await arrangeAuction(server, [[outsider, 'owner']]);
});

afterAll(async () => {
  for (const c of [owner, member, outsider].map((u) => u?.client).concat(clients)) await c?.removeAllChannels();
  await server?.stop();
});

const tokenFor = (user: RealtimeUser, lifetimeSeconds: number) => accessTokenFor(server, user, lifetimeSeconds);

/** A client whose realtime token is set by hand (as apps with their own token handling do). */
async function tokenClient(token: string): Promise<SupabaseClient> {
  const client = createClient(server.url, server.anonKey, {
    accessToken: async () => token,
    realtime: { transport: WebSocket as never, heartbeatIntervalMs: 60_000 },
  });
  clients.push(client);
  await client.realtime.setAuth(token);
  return client;
}

describe('row-level security per subscriber', () => {
  it('a team member receives submissions of assigned locations only; the owner receives all', async () => {
    const sql = server.db.sql;
    const [a] = await sql<{ id: string }[]>`
      insert into public.locations (auction_id, name) values (${auction.auctionId}, 'North lot') returning id`;
    const [b] = await sql<{ id: string }[]>`
      insert into public.locations (auction_id, name) values (${auction.auctionId}, 'South lot') returning id`;
    await sql`insert into public.location_assignments (auction_id, location_id, user_id)
              values (${auction.auctionId}, ${a!.id}, ${member.id})`;
    const seenByMember: Row[] = [];
    const seenByOwner: Row[] = [];
    const seenByOutsider: Row[] = [];
    const on = (u: RealtimeUser, name: string, into: Row[]) =>
      subscribed(
        u.client
          .channel(name)
          .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'lot_submissions' }, (p) =>
            into.push(p.new as Row),
          ),
      );
    await Promise.all([on(member, 'm', seenByMember), on(owner, 'o', seenByOwner), on(outsider, 'x', seenByOutsider)]);
    await sql`insert into public.lot_submissions (auction_id, location_id, user_id, notes)
              values (${auction.auctionId}, ${b!.id}, ${owner.id}, 'south'), (${auction.auctionId}, ${a!.id},
                ${owner.id}, 'north')`;
    await until(() => seenByOwner.length === 2 && seenByMember.length === 1, 'the submissions');
    await sleep(300);
    expect(seenByMember.map((r) => r.notes)).toEqual(['north']);
    expect(seenByOwner.map((r) => r.notes)).toEqual(['south', 'north']);
    expect(seenByOutsider).toEqual([]);
  });

  it('a subscriber whose policy check raises does not stop the others from receiving', async () => {
    const fragile = await signUp(server, 'fragile');
    const healthy: Row[] = [];
    const broken: Row[] = [];
    await subscribed(
      fragile.client
        .channel('probe-f')
        .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'rt_probe' }, (p) =>
          broken.push(p.new as Row),
        ),
    );
    await subscribed(
      owner.client
        .channel('probe-o')
        .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'rt_probe' }, (p) =>
          healthy.push(p.new as Row),
        ),
    );
    await server.db.sql`insert into public.rt_probe (note) values ('one'), ('two')`;
    await until(() => healthy.length === 2, 'the healthy subscriber');
    await sleep(300);
    expect(healthy.map((r) => r.note)).toEqual(['one', 'two']);
    expect(broken).toEqual([]);
    await fragile.client.removeAllChannels();
  });

  it('a policy that raises on one row hides that row only, from that subscriber only', async () => {
    const touchy = await signUp(server, 'touchy');
    const toTouchy: Row[] = [];
    const toOwner: Row[] = [];
    const on = (u: RealtimeUser, into: Row[]) =>
      subscribed(
        u.client
          .channel(`rows-${u.id}`)
          .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'rt_rows' }, (p) =>
            into.push(p.new as Row),
          ),
      );
    await Promise.all([on(touchy, toTouchy), on(owner, toOwner)]);
    // One transaction: the three changes are checked in one call.
    await server.db.sql`insert into public.rt_rows (note) values ('before'), ('boom'), ('after')`;
    await until(() => toOwner.length === 3 && toTouchy.length === 2, 'both subscribers');
    await sleep(300);
    expect(toOwner.map((r) => r.note)).toEqual(['before', 'boom', 'after']);
    expect(toTouchy.map((r) => r.note)).toEqual(['before', 'after']);
    await touchy.client.removeAllChannels();
  });

  it('judges the row as committed: a message deleted right after its insert still reaches members', async () => {
    const seen: { type: string; content: unknown }[] = [];
    const seenByOutsider: Row[] = [];
    await subscribed(
      member.client
        .channel('committed')
        .on('postgres_changes', { event: '*', schema: 'public', table: 'messages' }, (p) =>
          seen.push({ type: p.eventType, content: (p.new as Row).content }),
        ),
    );
    await subscribed(
      outsider.client
        .channel('committed-x')
        .on('postgres_changes', { event: '*', schema: 'public', table: 'messages' }, (p) =>
          seenByOutsider.push(p.new as Row),
        ),
    );
    // Inserted and deleted in one transaction: the row is never in the table when the change is checked, so only
    // the image from the change stream can show it.
    await server.db.sql.begin(async (tx) => {
      await tx`insert into public.messages (auction_id, channel_id, user_id, content)
               values (${auction.auctionId}, ${auction.channelId}, ${owner.id}, 'fleeting')`;
      await tx`delete from public.messages where content = 'fleeting'`;
    });
    await until(() => seen.length === 2, 'the insert and the delete');
    await sleep(300);
    expect(seen).toEqual([
      { type: 'INSERT', content: 'fleeting' },
      { type: 'DELETE', content: undefined },
    ]);
    expect(seenByOutsider).toEqual([]);
  });

  it('a member removed from the auction stops receiving at once', async () => {
    const other = await signUp(server, 'second-member');
    await server.db.sql`insert into public.auction_members (auction_id, user_id, role)
                        values (${auction.auctionId}, ${other.id}, 'team_member')`;
    const toMember: Row[] = [];
    const toOther: Row[] = [];
    const toOwner: Row[] = [];
    const on = (u: RealtimeUser, into: Row[]) =>
      subscribed(
        u.client
          .channel(`removal-${u.id}`)
          .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'messages' }, (p) =>
            into.push(p.new as Row),
          ),
      );
    await Promise.all([on(member, toMember), on(other, toOther), on(owner, toOwner)]);
    const say = (content: string) => server.db
      .sql`insert into public.messages (auction_id, channel_id, user_id, content)
      values (${auction.auctionId}, ${auction.channelId}, ${owner.id}, ${content})`;
    await say('before');
    await until(() => toMember.length === 1 && toOther.length === 1, 'both members');
    await server.db
      .sql`delete from public.auction_members where auction_id = ${auction.auctionId} and user_id = ${other.id}`;
    await say('after');
    await until(() => toOwner.length === 2 && toMember.length === 2, 'the owner and the remaining member');
    await sleep(300);
    expect(toOther.map((r) => r.content)).toEqual(['before']);
    await other.client.removeAllChannels();
  });

  it('never sends a column the subscriber may not select', async () => {
    const got: Row[] = [];
    await subscribed(
      owner.client
        .channel('invites')
        .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'auction_invitations' }, (p) =>
          got.push(p.new as Row),
        ),
    );
    const grants = await server.db.sql<{ column_name: string }[]>`
      select column_name from information_schema.column_privileges
       where table_schema = 'public' and table_name = 'auction_invitations' and grantee = 'authenticated'
         and privilege_type = 'SELECT'`;
    await server.db
      .sql`insert into public.auction_invitations (auction_id, email, role, token_hash, invited_by, expires_at)
      values (${auction.auctionId}, 'new@realtime.test', 'team_member', 'secret-hash', ${owner.id}, now() + interval
        '1 day')`;
    await until(() => got.length === 1, 'the invitation');
    expect(Object.keys(got[0]!).sort()).toEqual(grants.map((g) => g.column_name).sort());
    expect(got[0]).not.toHaveProperty('token_hash');
  });
});

describe('private channels', () => {
  it('members of the auction join auction:<id>; others get the reason', async () => {
    const topic = `auction:${auction.auctionId}:yard`;
    await subscribed(member.client.channel(topic, { config: { private: true } }));
    await expect(subscribed(outsider.client.channel(topic, { config: { private: true } }))).rejects.toThrow(
      `You do not have permission to join ${topic}`,
    );
    // Other names follow their own policies; with none, nobody joins.
    await expect(subscribed(member.client.channel('yard-chat', { config: { private: true } }))).rejects.toThrow(
      'You do not have permission to join yard-chat',
    );
  });

  it('a private channel and a public one of the same name are different rooms', async () => {
    const topic = `auction:${auction.auctionId}:gate`;
    const heardPrivately: Row[] = [];
    const priv = member.client
      .channel(topic, { config: { private: true } })
      .on('broadcast', { event: 'note' }, (m) => heardPrivately.push(m.payload as Row));
    const heardPublicly: Row[] = [];
    const pub = outsider.client
      .channel(topic)
      .on('broadcast', { event: 'note' }, (m) => heardPublicly.push(m.payload as Row));
    const sender = owner.client.channel(topic, { config: { private: true } });
    await Promise.all([subscribed(priv), subscribed(pub), subscribed(sender)]);
    await sender.send({ type: 'broadcast', event: 'note', payload: { lot: 3 } });
    await until(() => heardPrivately.length === 1, 'the private broadcast');
    await sleep(200);
    expect(heardPrivately).toEqual([{ lot: 3 }]);
    expect(heardPublicly).toEqual([]);
  });

  it('an anonymous connection cannot join', async () => {
    const anon = createClient(server.url, server.anonKey, { realtime: { transport: WebSocket as never } });
    clients.push(anon);
    await expect(subscribed(anon.channel('lobby'))).rejects.toThrow('Sign in to join channels');
  });
});

describe('tokens', () => {
  it('a token that expires closes the channel with a system message', async () => {
    const client = await tokenClient(await tokenFor(owner, 3));
    const system: Row[] = [];
    const statuses: string[] = [];
    const ch = client.channel('expiring').on('system', {}, (p) => system.push(p as Row));
    await new Promise<void>((resolve) =>
      ch.subscribe((status) => {
        statuses.push(status);
        if (status === 'SUBSCRIBED') resolve();
      }),
    );
    await until(() => statuses.includes('CLOSED'), 'the channel to close', 10_000);
    expect(system).toContainEqual(expect.objectContaining({ status: 'error', message: 'Token has expired' }));
  });

  it('setAuth with a new token keeps the channel open past the old token expiry', async () => {
    const client = await tokenClient(await tokenFor(owner, 3));
    const statuses: string[] = [];
    const got: Row[] = [];
    const ch = client
      .channel('refreshed')
      .on(
        'postgres_changes',
        { event: 'INSERT', schema: 'public', table: 'messages', filter: `channel_id=eq.${auction.channelId}` },
        (p) => got.push(p.new as Row),
      );
    await new Promise<void>((resolve) =>
      ch.subscribe((status) => {
        statuses.push(status);
        if (status === 'SUBSCRIBED') resolve();
      }),
    );
    await client.realtime.setAuth(await tokenFor(owner, 3600));
    await sleep(4_000);
    await server.db.sql`insert into public.messages (auction_id, channel_id, user_id, content)
      values (${auction.auctionId}, ${auction.channelId}, ${owner.id}, 'after the old expiry')`;
    await until(() => got.length === 1, 'the change after the refresh');
    expect(statuses).toEqual(['SUBSCRIBED']);
  });

  it('a new token with other claims is judged by them on a channel without a filter, gaining and losing rows', async () => {
    // Unfiltered channels share what the router works out for their subscribers; a token with other claims must
    // be checked as itself from the next change on, both when it may see more and when it may see less.
    const client = await tokenClient(await tokenFor(member, 3600));
    const gold: string[] = [];
    const markers: string[] = [];
    await subscribed(
      client
        .channel('tiers')
        .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'rt_gold' }, (p) =>
          gold.push((p.new as Row).note as string),
        )
        .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'rt_probe' }, (p) =>
          markers.push((p.new as Row).note as string),
        ),
    );
    let round = 0;
    /**
     * Writes a gold row and a marker everyone may see in one transaction: changes arrive in commit order, so once
     * the marker is here the gold row has come too, or will not come. Answers whether it came.
     */
    const seesGold = async (): Promise<boolean> => {
      const note = `round ${round++}`;
      await server.db.sql.begin(async (tx) => {
        await tx`insert into public.rt_gold (note) values (${note})`;
        await tx`insert into public.rt_probe (note) values (${note})`;
      });
      await until(() => markers.includes(note), `the marker of ${note}`);
      return gold.includes(note);
    };
    /** The new token reaches the server some time after setAuth: rounds until its answer shows. */
    const untilSeesGold = async (wanted: boolean) => {
      for (let tries = 0; (await seesGold()) !== wanted; tries++)
        expect(tries, `a round where gold rows are ${wanted ? 'seen' : 'no longer seen'}`).toBeLessThan(50);
    };
    expect(await seesGold()).toBe(false);
    await client.realtime.setAuth(await accessTokenFor(server, member, 3600, { tier: 'gold' }));
    await untilSeesGold(true);
    await client.realtime.setAuth(await tokenFor(member, 3600));
    await untilSeesGold(false);
    // Once the plain token is in force, it stays in force.
    expect(await seesGold()).toBe(false);
  });

  it('the upgrade without an API key is refused by the gateway; a plain GET is told to upgrade', async () => {
    const plain = await fetch(`${server.url}/realtime/v1/websocket?apikey=${server.anonKey}`);
    expect(plain.status).toBe(426);
    const status = await new Promise<number>((resolve, reject) => {
      const ws = new WebSocket(`${server.url.replace('http', 'ws')}/realtime/v1/websocket?vsn=2.0.0`);
      ws.on('unexpected-response', (_req, response) => resolve(response.statusCode ?? 0));
      ws.on('open', () => reject(new Error('opened without a key')));
      ws.on('error', () => {});
    });
    expect(status).toBe(401);
  });
});
