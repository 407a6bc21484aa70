// Realtime over HTTP with supabase-js: httpSend() and send() before a join (POST /realtime/v1/api/broadcast),
// private channels checked as joins are, the limits, stored broadcasts replayed to joins, membership checked again
// when the token changes, and byte broadcasts to vsn 1.0.0 and 2.0.0 connections (raw WebSockets).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RealtimeChannel } from '@supabase/supabase-js';
import WebSocket from 'ws';
import type { TestServer } from './support/test-server.js';
import * as rt from './realtime.fixture.js';

const { sleep, subscribed, until } = rt;
type Row = Record<string, unknown>;
let server: TestServer;
let alice: rt.RealtimeUser;
let bob: rt.RealtimeUser;
let outsider: rt.RealtimeUser;
let auction: { auctionId: string };
const sockets: WebSocket[] = [];

beforeAll(async () => {
  server = await rt.startRealtimeServer({
    REALTIME_MAX_PAYLOAD_BYTES: '1024',
    REALTIME_MAX_EVENTS_PER_SECOND: '20',
    REALTIME_REPLAY_MAX_MESSAGES_PER_TOPIC: '3',
    REALTIME_REPLAY_MAX_AGE_SECONDS: '120',
  });
  [alice, bob, outsider] = await Promise.all(['alice', 'bob', 'outsider'].map((name) => rt.signUp(server, name)));
  auction = await rt.arrangeAuction(server, [
    [alice!, 'owner'],
    [bob!, 'team_member'],
  ]);
  for (const u of [alice, bob, outsider]) await u.client.realtime.setAuth();
});

afterAll(async () => {
  for (const ws of sockets) ws.terminate();
  for (const u of [alice, bob, outsider]) await u?.client.removeAllChannels();
  await server?.stop();
});

/** Collects the broadcasts of one event on a channel (whole messages: payload and meta). */
function listen(channel: RealtimeChannel, event: string): Row[] {
  const got: Row[] = [];
  channel.on('broadcast', { event }, (m) => got.push(m as Row));
  return got;
}

describe('broadcast over HTTP', () => {
  it('httpSend answers {success: true} and reaches the joined members; send() before a join goes over HTTP', async () => {
    const receiver = bob.client.channel('http-room');
    const got = listen(receiver, 'note');
    await subscribed(receiver);
    const sender = alice.client.channel('http-room');
    expect(await sender.httpSend('note', { n: 1 })).toEqual({ success: true });
    expect(await sender.send({ type: 'broadcast', event: 'note', payload: { n: 2 } })).toBe('ok');
    await until(() => got.length === 2, 'both broadcasts');
    expect(got.map((m) => m.payload)).toEqual([{ n: 1 }, { n: 2 }]);
    await alice.client.removeChannel(sender);
  });

  it('private channels admit members only, as a join does', async () => {
    const topic = `auction:${auction.auctionId}`;
    const channel = bob.client.channel(topic, { config: { private: true } });
    const got = listen(channel, 'bid');
    await subscribed(channel);
    const member = alice.client.channel(topic, { config: { private: true } });
    expect(await member.httpSend('bid', { amount: 10 })).toEqual({ success: true });
    const stranger = outsider.client.channel(topic, { config: { private: true } });
    await expect(stranger.httpSend('bid', { amount: 99 })).rejects.toThrow(
      `You do not have permission to write broadcast messages to ${topic}`,
    );
    // The public room of the same name is another room: nothing sent there reaches the private one.
    const publicSend = await fetch(`${server.url}/realtime/v1/api/broadcast`, {
      method: 'POST',
      headers: {
        apikey: server.anonKey,
        authorization: `Bearer ${outsider.token}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ messages: [{ topic, event: 'bid', payload: { amount: 98 }, private: false }] }),
    });
    expect(publicSend.status).toBe(202);
    await until(() => got.length === 1, 'the member broadcast');
    await sleep(300);
    expect(got.map((m) => m.payload)).toEqual([{ amount: 10 }]);
  });

  it('refuses anonymous senders, bad tokens, large payloads and malformed bodies with their status', async () => {
    const anon = rt.realtimeClient(server).channel('http-room');
    await expect(anon.httpSend('note', { n: 0 })).rejects.toThrow('Sign in to join channels');
    const post = (path: string, body: string, token = alice.token) =>
      fetch(`${server.url}/realtime/v1/api/broadcast${path}`, {
        method: 'POST',
        headers: { apikey: server.anonKey, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body,
      });
    const badToken = await post('', JSON.stringify({ messages: [{ topic: 'x', event: 'e', payload: {} }] }), 'nope');
    expect(badToken.status).toBe(401);
    const big = await alice.client
      .channel('http-room')
      .httpSend('note', { text: 'x'.repeat(2000) })
      .catch((e) => e);
    expect(String(big)).toContain('Payload too large: at most 1024 bytes');
    const malformed = await post('', JSON.stringify({ messages: 'no' }));
    expect(malformed.status).toBe(422);
    expect(((await malformed.json()) as Row).message).toContain('{messages: [{topic, event, payload, private}]}');
    const publicPersist = await post('/http-room/events/note?persist=true', '{}');
    expect(publicPersist.status).toBe(422);
    expect(((await publicPersist.json()) as Row).message).toBe(
      'Only private channels store messages: send with private=true',
    );
  });

  it('messages past the events-per-second limit are refused with 429', async () => {
    const messages = Array.from({ length: 21 }, (_, i) => ({ topic: 'flood', event: 'e', payload: { i } }));
    const response = await fetch(`${server.url}/realtime/v1/api/broadcast`, {
      method: 'POST',
      headers: { apikey: server.anonKey, authorization: `Bearer ${alice.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ messages }),
    });
    expect(response.status).toBe(429);
    expect(((await response.json()) as Row).message).toBe('Too many messages: at most 20 per second per connection');
  });
});

describe('stored broadcasts and replay', () => {
  it('a join with replay receives the stored messages since then, marked replayed, before live ones', async () => {
    const topic = `auction:${auction.auctionId}:replay`;
    const since = Date.now() - 1000;
    const sender = alice.client.channel(topic, { config: { private: true } });
    expect(await sender.httpSend('bid', { n: 1 }, { persist: true })).toEqual({ success: true });
    expect(await sender.httpSend('bid', { n: 2 }, { persist: { ttl: 60 } })).toEqual({ success: true });
    await sender.httpSend('bid', { n: 3 }); // not stored: never replayed
    const channel = bob.client.channel(topic, {
      config: { private: true, broadcast: { replay: { since, limit: 10 } } },
    });
    const got = listen(channel, 'bid');
    await subscribed(channel);
    await sender.httpSend('bid', { n: 4 }, { persist: true });
    await until(() => got.length === 3, 'two replayed and one live');
    expect(got.map((m) => m.payload)).toEqual([{ n: 1 }, { n: 2 }, { n: 4 }]);
    expect(got.map((m) => (m.meta as Row).replayed)).toEqual([true, true, undefined]);
    for (const m of got) expect((m.meta as Row).id).toMatch(/^[0-9a-f-]{36}$/);
    const [stored] = await server.db.sql`select count(*)::int as n from realtime.messages where topic = ${topic}`;
    expect(stored!.n).toBe(3);
  });

  it('replay limit keeps the newest; a join without replay gets nothing stored; replay on a public channel is refused', async () => {
    const topic = `auction:${auction.auctionId}:limit`;
    const sender = alice.client.channel(topic, { config: { private: true } });
    for (const n of [1, 2, 3]) await sender.httpSend('bid', { n }, { persist: true });
    const replaying = bob.client.channel(topic, {
      config: { private: true, broadcast: { replay: { since: 0, limit: 2 } } },
    });
    const replayed = listen(replaying, 'bid');
    const plain = alice.client.channel(topic, { config: { private: true } });
    const none = listen(plain, 'bid');
    await Promise.all([subscribed(replaying), subscribed(plain)]);
    await until(() => replayed.length === 2, 'the two newest');
    await sleep(300);
    expect(replayed.map((m) => m.payload)).toEqual([{ n: 2 }, { n: 3 }]);
    expect(none).toEqual([]);
    const bad = bob.client.channel(`${topic}:bad`, {
      config: { private: true, broadcast: { replay: { since: 'yesterday' as never } } },
    });
    await expect(subscribed(bad)).rejects.toThrow('Replay params are not valid');
    expect(() => bob.client.channel('open', { config: { broadcast: { replay: { since: 0 } } } })).toThrow(
      'must be a private channel',
    );
  });
  it('send() with persist over the WebSocket (vsn 2.0.0) stores the message too', async () => {
    const topic = `auction:${auction.auctionId}:ws-persist`;
    const sender = alice.client.channel(topic, { config: { private: true, broadcast: { ack: true } } });
    await subscribed(sender);
    expect(await sender.send({ type: 'broadcast', event: 'bid', payload: { n: 0 }, persist: { ttl: 0 } })).toBe(
      'persist ttl is a positive whole number of seconds',
    );
    expect(await sender.send({ type: 'broadcast', event: 'bid', payload: { n: 1 }, persist: { ttl: 60 } })).toBe('ok');
    const late = bob.client.channel(topic, { config: { private: true, broadcast: { replay: { since: 0 } } } });
    const got = listen(late, 'bid');
    await subscribed(late);
    await until(() => got.length === 1, 'the replayed message');
    expect(got[0]).toMatchObject({ payload: { n: 1 }, meta: { replayed: true } });
    const [row] = await server.db.sql<{ ttl: number }[]>`
      select round(extract(epoch from expires_at - inserted_at))::int as ttl from realtime.messages where topic = ${topic}`;
    expect(row!.ttl).toBe(60);
  });
  it('retention: a topic keeps its newest messages up to the count, a ttl is cut to the maximum age, expired ones are not replayed', async () => {
    const topic = `auction:${auction.auctionId}:retention`;
    const sender = alice.client.channel(topic, { config: { private: true } });
    for (const n of [1, 2, 3, 4]) await sender.httpSend('bid', { n }, { persist: { ttl: 100_000 } });
    const rows = await server.db.sql<{ n: number; ttl: number }[]>`
      select (payload->>'n')::int as n, round(extract(epoch from expires_at - inserted_at))::int as ttl
        from realtime.messages where topic = ${topic} order by inserted_at`;
    expect(rows.map((r) => r.n)).toEqual([2, 3, 4]);
    expect(rows.map((r) => r.ttl)).toEqual([120, 120, 120]);
    await server.db.sql`update realtime.messages set expires_at = now() - interval '1 second'
                         where topic = ${topic} and payload->>'n' = '2'`;
    const late = bob.client.channel(topic, { config: { private: true, broadcast: { replay: { since: 0 } } } });
    const got = listen(late, 'bid');
    await subscribed(late);
    await until(() => got.length === 2, 'the unexpired messages');
    await sleep(200);
    expect(got.map((m) => m.payload)).toEqual([{ n: 3 }, { n: 4 }]);
  });
});

describe('membership checked again', () => {
  it('a member removed from the auction stops receiving once the token changes', async () => {
    const carol = await rt.signUp(server, 'carol');
    await server.db.sql`insert into public.auction_members (auction_id, user_id, role)
                        values (${auction.auctionId}, ${carol.id}, 'team_member')`;
    await carol.client.realtime.setAuth();
    const topic = `auction:${auction.auctionId}:recheck`;
    const channel = carol.client.channel(topic, { config: { private: true } });
    const got = listen(channel, 'bid');
    const system: Row[] = [];
    channel.on('system', {}, (m) => system.push(m as Row));
    await subscribed(channel);
    const sender = alice.client.channel(topic, { config: { private: true } });
    await sender.httpSend('bid', { n: 1 });
    await until(() => got.length === 1, 'the broadcast before removal');
    await server.db.sql`delete from public.auction_members where user_id = ${carol.id}`;
    await carol.client.realtime.setAuth(await rt.accessTokenFor(server, carol, 3600));
    await until(() => system.length === 1, 'the system message');
    expect(system[0]).toMatchObject({
      status: 'error',
      message: `You no longer have permission to read from this Channel topic: ${topic}`,
    });
    await sender.httpSend('bid', { n: 2 });
    await sleep(300);
    expect(got.map((m) => m.payload)).toEqual([{ n: 1 }]);
    await carol.client.removeAllChannels();
  });
});

describe('byte broadcasts', () => {
  async function rawJoin(vsn: '1.0.0' | '2.0.0', name = 'bytes', config: object = {}): Promise<unknown[]> {
    const ws = new WebSocket(
      `${server.url.replace('http', 'ws')}/realtime/v1/websocket?apikey=${server.anonKey}&vsn=${vsn}`,
    );
    sockets.push(ws);
    const got: unknown[] = [];
    ws.on('message', (data, isBinary) => got.push(isBinary ? (data as Buffer) : JSON.parse(String(data))));
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const payload = { config, access_token: bob.token };
    ws.send(
      JSON.stringify(
        vsn === '2.0.0'
          ? ['1', '1', `realtime:${name}`, 'phx_join', payload]
          : { join_ref: '1', ref: '1', topic: `realtime:${name}`, event: 'phx_join', payload },
      ),
    );
    await until(() => got.length > 0, `the ${vsn} join reply`);
    return got;
  }

  it('stored bytes are replayed to vsn 2.0.0 as a binary frame whose metadata marks them replayed', async () => {
    const topic = `auction:${auction.auctionId}:blobs`;
    const sender = alice.client.channel(topic, { config: { private: true } });
    expect(await sender.httpSend('blob', new Uint8Array([7, 8, 9]), { persist: true })).toEqual({ success: true });
    const [stored] = await server.db.sql<
      { id: string }[]
    >`select id::text from realtime.messages where topic = ${topic}`;
    const got = await rawJoin('2.0.0', topic, { private: true, broadcast: { replay: { since: 0 } } });
    await until(() => got.length === 2, 'the replayed bytes');
    const frame = got[1] as Buffer;
    const [kind, topicLength, eventLength, metaLength] = frame;
    expect(kind).toBe(4);
    const metaStart = 5 + topicLength! + eventLength!;
    expect(JSON.parse(frame.toString('utf8', metaStart, metaStart + metaLength!))).toEqual({
      replayed: true,
      id: stored!.id,
    });
    expect([...frame.subarray(metaStart + metaLength!)]).toEqual([7, 8, 9]);
  });

  it('vsn 2.0.0 receives the bytes in a binary frame; vsn 1.0.0 is told it cannot carry them', async () => {
    const [v1, v2] = [await rawJoin('1.0.0'), await rawJoin('2.0.0')];
    const bytes = new Uint8Array([0, 1, 2, 255]);
    expect(await alice.client.channel('bytes').httpSend('blob', bytes)).toEqual({ success: true });
    await until(() => v1.length === 2 && v2.length === 2, 'the deliveries');
    const frame = v2[1] as Buffer;
    expect(frame[0]).toBe(4); // kind 4: a user broadcast to a client
    expect([...frame.subarray(frame.length - 4)]).toEqual([0, 1, 2, 255]);
    expect(v1[1]).toMatchObject({
      topic: 'realtime:bytes',
      event: 'system',
      payload: {
        extension: 'broadcast',
        status: 'error',
        message:
          'A broadcast of event "blob" carried bytes, which protocol 1.0.0 cannot carry: connect with vsn=2.0.0 to receive it',
      },
    });
  });
});
