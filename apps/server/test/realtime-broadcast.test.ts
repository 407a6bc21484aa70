// Broadcast and presence through supabase-js, on one server and across two servers on one database (stored
// broadcasts sent over HTTP too); changes reach subscribers of both servers exactly once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SupabaseClient } from '@supabase/supabase-js';
import { startTestServer, type TestServer } from './support/test-server.js';
import {
  arrangeAuction,
  PASSWORD,
  realtimeClient,
  signUp,
  sleep,
  subscribed,
  until,
  type RealtimeUser,
} from './realtime.fixture.js';

type Row = Record<string, unknown>;
let first: TestServer;
let second: TestServer;
let alice: RealtimeUser;
let bob: RealtimeUser;
let auction: { auctionId: string; channelId: string };
const clients: SupabaseClient[] = [];

/** The same user signed in on another server (its client's realtime connects there). */
async function signInOn(server: { url: string; anonKey: string }, user: RealtimeUser): Promise<SupabaseClient> {
  const client = realtimeClient(server);
  const { error } = await client.auth.signInWithPassword({ email: user.email, password: PASSWORD });
  if (error) throw error;
  clients.push(client);
  return client;
}

beforeAll(async () => {
  first = await startTestServer({
    AUTH_RATE_LIMIT_SIGN_UP: '1000',
    AUTH_RATE_LIMIT_SIGN_IN: '1000',
    WORKERS_ENABLED: 'false',
  });
  // The second server on the first one's database, with the same JWT secret.
  second = await startTestServer(
    { JWT_SECRET: first.jwtSecret, WORKERS_ENABLED: 'false', AUTH_RATE_LIMIT_SIGN_IN: '1000' },
    { db: first.db },
  );
  alice = await signUp(first, 'alice');
  bob = await signUp(first, 'bob');
  auction = await arrangeAuction(first, [
    [alice, 'owner'],
    [bob, 'admin'],
  ]);
});

afterAll(async () => {
  for (const c of [alice?.client, bob?.client, ...clients]) await c?.removeAllChannels();
  await second?.stop();
  await first?.stop();
});

describe('broadcast and presence on one server', () => {
  it('broadcast reaches the others, the sender only with self, and ack resolves the send', async () => {
    const toAlice: Row[] = [];
    const toBob: Row[] = [];
    const a = alice.client
      .channel('room-1', { config: { broadcast: { self: true, ack: true } } })
      .on('broadcast', { event: 'cursor' }, (m) => toAlice.push(m.payload as Row));
    const b = bob.client.channel('room-1').on('broadcast', { event: 'cursor' }, (m) => toBob.push(m.payload as Row));
    await Promise.all([subscribed(a), subscribed(b)]);
    expect(await a.send({ type: 'broadcast', event: 'cursor', payload: { x: 1 } })).toBe('ok');
    await b.send({ type: 'broadcast', event: 'cursor', payload: { x: 2 } });
    await until(() => toAlice.length === 2 && toBob.length === 1, 'the broadcasts');
    await sleep(200);
    expect(toAlice).toEqual([{ x: 1 }, { x: 2 }]);
    expect(toBob).toEqual([{ x: 1 }]); // bob did not ask for self
  });

  it('presence: a join and a leave are seen by the other client', async () => {
    const joins: string[] = [];
    const leaves: string[] = [];
    const a = alice.client.channel('room-2', { config: { presence: { key: 'alice' } } });
    const b = bob.client
      .channel('room-2', { config: { presence: { key: 'bob' } } })
      .on('presence', { event: 'join' }, ({ key }) => joins.push(key))
      .on('presence', { event: 'leave' }, ({ key }) => leaves.push(key));
    await Promise.all([subscribed(a), subscribed(b)]);
    await a.track({ status: 'checking lot 7' });
    await until(() => joins.includes('alice'), 'alice to join');
    expect(Object.values(b.presenceState()).flat()).toContainEqual(
      expect.objectContaining({ status: 'checking lot 7' }),
    );
    await a.untrack();
    await until(() => leaves.includes('alice'), 'alice to leave');
    expect(b.presenceState()).toEqual({});
  });
});

describe('across two servers on one database', () => {
  it('broadcast and presence reach a subscriber of the other server', async () => {
    const bobOnSecond = await signInOn({ url: second.url, anonKey: second.anonKey }, bob);
    const heard: Row[] = [];
    const joins: string[] = [];
    const a = alice.client.channel('yard', { config: { presence: { key: 'alice' } } });
    const b = bobOnSecond
      .channel('yard', { config: { presence: { key: 'bob' } } })
      .on('broadcast', { event: 'note' }, (m) => heard.push(m.payload as Row))
      .on('presence', { event: 'join' }, ({ key }) => joins.push(key));
    await Promise.all([subscribed(a), subscribed(b)]);
    await a.send({ type: 'broadcast', event: 'note', payload: { lot: 7 } });
    await a.track({ at: 'gate' });
    await until(() => heard.length === 1 && joins.includes('alice'), 'the broadcast and the join on the other server');
    expect(heard).toEqual([{ lot: 7 }]);
  });

  it('a stored broadcast sent over HTTP to one server reaches a member on the other with its id, and is replayed there', async () => {
    const bobOnSecond = await signInOn({ url: second.url, anonKey: second.anonKey }, bob);
    const topic = `auction:${auction.auctionId}:across`;
    const live: Row[] = [];
    const b = bobOnSecond
      .channel(topic, { config: { private: true } })
      .on('broadcast', { event: 'bid' }, (m) => live.push(m as Row));
    await subscribed(b);
    await alice.client.realtime.setAuth();
    const sent = await alice.client
      .channel(topic, { config: { private: true } })
      .httpSend('bid', { n: 1 }, { persist: true });
    expect(sent).toEqual({ success: true });
    await until(() => live.length === 1, 'the broadcast on the other server');
    const id = (live[0]!.meta as Row).id;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    await bobOnSecond.removeChannel(b); // the same topic: realtime-js would hand back the joined channel
    const replayed: Row[] = [];
    const late = bobOnSecond
      .channel(topic, { config: { private: true, broadcast: { replay: { since: 0 } } } })
      .on('broadcast', { event: 'bid' }, (m) => replayed.push(m as Row));
    await subscribed(late);
    await until(() => replayed.length === 1, 'the replay on the other server');
    expect(replayed[0]).toMatchObject({ payload: { n: 1 }, meta: { replayed: true, id } });
  });

  it('a change reaches the subscribers of both servers, each exactly once', async () => {
    const bobOnSecond = await signInOn({ url: second.url, anonKey: second.anonKey }, bob);
    const onFirst: Row[] = [];
    const onSecond: Row[] = [];
    const filter = `channel_id=eq.${auction.channelId}`;
    await subscribed(
      alice.client
        .channel('c1')
        .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'messages', filter }, (p) =>
          onFirst.push(p.new as Row),
        ),
    );
    await subscribed(
      bobOnSecond
        .channel('c2')
        .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'messages', filter }, (p) =>
          onSecond.push(p.new as Row),
        ),
    );
    await first.db.sql`insert into public.messages (auction_id, channel_id, user_id, content)
      values (${auction.auctionId}, ${auction.channelId}, ${alice.id}, 'to both')`;
    await until(() => onFirst.length === 1 && onSecond.length === 1, 'both subscribers');
    await sleep(500);
    expect(onFirst.map((r) => r.content)).toEqual(['to both']);
    expect(onSecond.map((r) => r.content)).toEqual(['to both']);
  });
});
