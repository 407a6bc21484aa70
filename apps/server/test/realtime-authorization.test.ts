// Realtime Authorization through supabase-js: private topics decided by policies on realtime.messages (shipped
// auction policies and user-written ones), a removed member losing the topic at token refresh, broadcasts sent
// from SQL (a trigger) reaching subscribers on two servers of one database, and each REALTIME_PUBLIC_CHANNELS.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import { startTestServer, type TestServer } from './support/test-server.js';
import {
  accessTokenFor,
  arrangeAuction,
  signUp,
  sleep,
  subscribed,
  until,
  type RealtimeUser,
} from './realtime.fixture.js';

type Row = Record<string, unknown>;
let signedIn: TestServer;
let anyone: TestServer;
let privateOnly: TestServer;
let owner: RealtimeUser;
let member: RealtimeUser;
let outsider: RealtimeUser;
let auction: { auctionId: string; channelId: string };
const clients: SupabaseClient[] = [];

/** A client of `server` whose realtime connection uses `token` (the anon key when none). */
async function clientOn(server: TestServer, token?: string): Promise<SupabaseClient> {
  const client = createClient(server.url, server.anonKey, {
    ...(token ? { accessToken: async () => token } : { auth: { persistSession: false } }),
    realtime: { transport: WebSocket as never, heartbeatIntervalMs: 60_000 },
  });
  clients.push(client);
  if (token) await client.realtime.setAuth(token);
  return client;
}

beforeAll(async () => {
  signedIn = await startTestServer({ AUTH_RATE_LIMIT_SIGN_UP: '1000', WORKERS_ENABLED: 'false' });
  const shared = { JWT_SECRET: signedIn.jwtSecret, WORKERS_ENABLED: 'false' };
  anyone = await startTestServer({ ...shared, REALTIME_PUBLIC_CHANNELS: 'anyone' }, { db: signedIn.db });
  privateOnly = await startTestServer({ ...shared, REALTIME_PUBLIC_CHANNELS: 'off' }, { db: signedIn.db });
  owner = await signUp(signedIn, 'owner');
  member = await signUp(signedIn, 'member');
  outsider = await signUp(signedIn, 'outsider');
  auction = await arrangeAuction(signedIn, [
    [owner, 'owner'],
    [member, 'team_member'],
  ]);
  // An app's own policies: anyone signed in reads and writes `room-*`; `board-*` is read-only.
  await signedIn.db.sql.unsafe(`
    create policy rooms_read on realtime.messages for select to authenticated using (realtime.topic() like 'room-%');
    create policy rooms_write on realtime.messages for insert to authenticated
      with check (realtime.topic() like 'room-%');
    create policy boards_read on realtime.messages for select to authenticated
      using (realtime.topic() like 'board-%');
    create table public.rt_bids (id bigint generated always as identity primary key, auction_id uuid not null,
                                 amount integer not null);
    create function public.rt_bids_broadcast() returns trigger language plpgsql as $$
    begin
      perform realtime.broadcast_changes('auction:' || new.auction_id, 'bid_' || lower(tg_op), tg_op,
                                         tg_table_name, tg_table_schema, new, old);
      return null;
    end $$;
    create trigger rt_bids_broadcast after insert or update on public.rt_bids
      for each row execute function public.rt_bids_broadcast();`);
});

afterAll(async () => {
  for (const c of [owner, member, outsider].map((u) => u?.client).concat(clients)) await c?.removeAllChannels();
  await privateOnly?.stop();
  await anyone?.stop();
  await signedIn?.stop();
});

describe('private topics by policy', () => {
  it('a user-written policy admits a topic of any name; the topic broadcasts both ways', async () => {
    const topic = `room-${Math.random().toString(36).slice(2)}`;
    const heard: Row[] = [];
    const listener = member.client
      .channel(topic, { config: { private: true } })
      .on('broadcast', { event: 'hello' }, (m) => heard.push(m.payload as Row));
    const sender = outsider.client.channel(topic, { config: { private: true, broadcast: { ack: true } } });
    await Promise.all([subscribed(listener), subscribed(sender)]);
    expect(await sender.send({ type: 'broadcast', event: 'hello', payload: { n: 1 } })).toBe('ok');
    await until(() => heard.length === 1, 'the broadcast on the policy-allowed topic');
    expect(heard).toEqual([{ n: 1 }]);
  });

  it('no policy for the topic: the join is refused with the reason', async () => {
    await expect(subscribed(member.client.channel('lobby-x', { config: { private: true } }))).rejects.toThrow(
      'You do not have permission to join lobby-x',
    );
    await expect(
      subscribed(outsider.client.channel(`auction:${auction.auctionId}`, { config: { private: true } })),
    ).rejects.toThrow(`You do not have permission to join auction:${auction.auctionId}`);
  });

  it('a read-only policy admits the join but refuses sends, over the socket and over HTTP', async () => {
    const topic = `board-${Math.random().toString(36).slice(2)}`;
    const channel = member.client.channel(topic, { config: { private: true, broadcast: { ack: true } } });
    await subscribed(channel);
    expect(await channel.send({ type: 'broadcast', event: 'note', payload: {} })).toBe('error');
    await expect(channel.httpSend('note', {})).rejects.toThrow('You do not have permission to write broadcast');
  });

  it('a policy created after a join takes effect at the next join', async () => {
    const topic = `late-${Math.random().toString(36).slice(2)}`;
    await expect(subscribed(member.client.channel(topic, { config: { private: true } }))).rejects.toThrow(
      'You do not have permission',
    );
    await signedIn.db.sql.unsafe(
      `create policy late_read on realtime.messages for select to authenticated using (realtime.topic() = '${topic}')`,
    );
    const client = await clientOn(signedIn, member.token);
    await subscribed(client.channel(topic, { config: { private: true } }));
  });

  it('a member removed from the auction loses its topic when the token is refreshed', async () => {
    const leaver = await signUp(signedIn, 'leaver');
    await signedIn.db
      .sql`insert into public.auction_members (auction_id, user_id, role) values (${auction.auctionId}, ${leaver.id}, 'team_member')`;
    const client = await clientOn(signedIn, await accessTokenFor(signedIn, leaver, 3600));
    const system: Row[] = [];
    const statuses: string[] = [];
    const channel = client
      .channel(`auction:${auction.auctionId}:floor`, { config: { private: true } })
      .on('system', {}, (p) => system.push(p as Row));
    await new Promise<void>((resolve) =>
      channel.subscribe((status) => {
        statuses.push(status);
        if (status === 'SUBSCRIBED') resolve();
      }),
    );
    await signedIn.db
      .sql`delete from public.auction_members where auction_id = ${auction.auctionId} and user_id = ${leaver.id}`;
    await client.realtime.setAuth(await accessTokenFor(signedIn, leaver, 7200));
    await until(() => statuses.includes('CLOSED'), 'the channel to close');
    expect(system).toContainEqual(
      expect.objectContaining({
        status: 'error',
        message: `You no longer have permission to read from this Channel topic: auction:${auction.auctionId}:floor`,
      }),
    );
  });
});

describe('broadcast from the database', () => {
  it('a trigger with realtime.broadcast_changes reaches members on both servers; nobody else hears it', async () => {
    const topic = `auction:${auction.auctionId}`;
    const onFirst: Row[] = [];
    const onSecond: Row[] = [];
    const publicListener: Row[] = [];
    await subscribed(
      member.client.channel(topic, { config: { private: true } }).on('broadcast', { event: 'bid_insert' }, (m) => {
        onFirst.push(m.payload as Row);
      }),
    );
    await subscribed(
      (await clientOn(anyone, owner.token))
        .channel(topic, { config: { private: true } })
        .on('broadcast', { event: 'bid_insert' }, (m) => onSecond.push(m.payload as Row)),
    );
    await subscribed(
      (await clientOn(signedIn, outsider.token)).channel(topic).on('broadcast', { event: 'bid_insert' }, (m) => {
        publicListener.push(m.payload as Row);
      }),
    );
    await signedIn.db.sql`insert into public.rt_bids (auction_id, amount) values (${auction.auctionId}, 120)`;
    await until(() => onFirst.length === 1 && onSecond.length === 1, 'the bid on both servers');
    expect(onFirst[0]).toMatchObject({
      operation: 'INSERT',
      table: 'rt_bids',
      schema: 'public',
      record: { auction_id: auction.auctionId, amount: 120 },
      old_record: null,
    });
    expect(onSecond).toEqual(onFirst);
    await sleep(200);
    expect(publicListener).toEqual([]);
  });

  it('realtime.send under a refusing policy warns and sends nothing; the caller commits', async () => {
    const heard: Row[] = [];
    const topic = `room-${Math.random().toString(36).slice(2)}`;
    await subscribed(
      member.client.channel(topic, { config: { private: true } }).on('broadcast', { event: 'x' }, (m) => {
        heard.push(m.payload as Row);
      }),
    );
    const outsiderSql = signedIn.db.sql;
    await outsiderSql.begin(async (tx) => {
      await tx`select set_config('role', 'authenticated', true),
                      set_config('request.jwt.claims', ${JSON.stringify({ sub: outsider.id, role: 'authenticated' })}, true)`;
      await tx`select realtime.send('{"from":"room"}'::jsonb, 'x', ${topic}, true)`;
      await tx`select realtime.send('{"from":"lobby"}'::jsonb, 'x', 'lobby-y', true)`;
    });
    await until(() => heard.length === 1, 'the allowed send');
    const [stored] = await signedIn.db.sql<
      { n: number }[]
    >`select count(*)::int as n from realtime.messages where topic = 'lobby-y'`;
    expect(stored!.n).toBe(0);
    expect(heard).toEqual([{ from: 'room' }]);
  });

  it('a message sent from SQL is replayed from realtime.messages', async () => {
    const topic = `room-${Math.random().toString(36).slice(2)}`;
    const since = Date.now() - 1000;
    await signedIn.db.sql`select realtime.send('{"kept":true}'::jsonb, 'memo', ${topic}, true)`;
    const heard: Row[] = [];
    await subscribed(
      member.client
        .channel(topic, { config: { private: true, broadcast: { replay: { since } } } })
        .on('broadcast', { event: 'memo' }, (m) => heard.push(m as Row)),
    );
    await until(() => heard.length === 1, 'the replayed message');
    expect(heard[0]).toMatchObject({ payload: { kept: true }, meta: { replayed: true } });
  });
});

describe('REALTIME_PUBLIC_CHANNELS', () => {
  it('signed-in (default): the anon key joins nothing', async () => {
    await expect(subscribed((await clientOn(signedIn)).channel('lobby'))).rejects.toThrow('Sign in to join channels');
  });

  it('anyone: the anon key joins a public channel and hears it; private ones still follow the policies', async () => {
    const anon = await clientOn(anyone);
    const heard: Row[] = [];
    await subscribed(anon.channel('lobby').on('broadcast', { event: 'hi' }, (m) => heard.push(m.payload as Row)));
    const sender = (await clientOn(anyone, owner.token)).channel('lobby', { config: { broadcast: { ack: true } } });
    await subscribed(sender);
    await sender.send({ type: 'broadcast', event: 'hi', payload: { a: 1 } });
    await until(() => heard.length === 1, 'the public broadcast to the anon connection');
    await expect(subscribed(anon.channel('room-1', { config: { private: true } }))).rejects.toThrow(
      'You do not have permission to join room-1',
    );
  });

  it('off: public channels are refused to everyone, private ones are joined by policy', async () => {
    const client = await clientOn(privateOnly, member.token);
    await expect(subscribed(client.channel('lobby'))).rejects.toThrow('Only private channels');
    await subscribed(client.channel(`auction:${auction.auctionId}`, { config: { private: true } }));
    await expect(subscribed((await clientOn(privateOnly)).channel('lobby'))).rejects.toThrow('Only private channels');
  });
});
