// postgres_changes through supabase-js against the real server: payload shapes, filters, row-level security
// per subscriber, token expiry and refresh, and no lost writes after SUBSCRIBED.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RealtimePostgresChangesPayload } from '@supabase/supabase-js';
import { startTestServer, type TestServer } from './support/test-server.js';
import { arrangeAuction, signUp, sleep, subscribed, until, type RealtimeUser } from './realtime.fixture.js';

type Row = Record<string, unknown>;
let server: TestServer;
let owner: RealtimeUser;
let outsider: RealtimeUser;
let auction: { auctionId: string; channelId: string };

beforeAll(async () => {
  server = await startTestServer({ AUTH_RATE_LIMIT_SIGN_UP: '1000', WORKERS_ENABLED: 'false' });
  owner = await signUp(server, 'owner');
  outsider = await signUp(server, 'outsider');
  auction = await arrangeAuction(server, [[owner, 'owner']]);
  await arrangeAuction(server, [[outsider, 'owner']]);
});

afterAll(async () => {
  for (const u of [owner, outsider]) await u?.client.removeAllChannels();
  await server?.stop();
});

describe('postgres_changes', () => {
  it('delivers INSERT, UPDATE (soft delete) and DELETE of a filtered channel in supabase-js shapes', async () => {
    const got: RealtimePostgresChangesPayload<Row>[] = [];
    const other: RealtimePostgresChangesPayload<Row>[] = [];
    const ch = owner.client
      .channel('chat')
      .on(
        'postgres_changes',
        { event: '*', schema: 'public', table: 'messages', filter: `channel_id=eq.${auction.channelId}` },
        (p) => got.push(p),
      );
    const spy = outsider.client
      .channel('spy')
      .on('postgres_changes', { event: '*', schema: 'public', table: 'messages' }, (p) => other.push(p));
    await Promise.all([subscribed(ch), subscribed(spy)]);

    const sql = server.db.sql;
    const [msg] = await sql<{ id: string }[]>`
      insert into public.messages (auction_id, channel_id, user_id, content)
      values (${auction.auctionId}, ${auction.channelId}, ${owner.id}, 'hello lot 7') returning id`;
    await sql`update public.messages set is_deleted = true, deleted_at = now() where id = ${msg!.id}`;
    await sql`delete from public.messages where id = ${msg!.id}`;
    await until(() => got.length === 3, 'three changes');

    const [insert, update, del] = got as [any, any, any];
    expect(insert.eventType).toBe('INSERT');
    expect(insert.schema).toBe('public');
    expect(insert.table).toBe('messages');
    expect(insert.new).toMatchObject({ id: msg!.id, content: 'hello lot 7', is_deleted: false, mentions: [] });
    expect(insert.old).toEqual({});
    expect(Date.parse(insert.commit_timestamp)).not.toBeNaN();
    expect(update.eventType).toBe('UPDATE');
    expect(update.new).toMatchObject({ id: msg!.id, is_deleted: true });
    expect(update.old).toEqual({ id: msg!.id, auction_id: auction.auctionId });
    expect(del.eventType).toBe('DELETE');
    expect(del.new).toEqual({});
    expect(del.old).toEqual({ id: msg!.id, auction_id: auction.auctionId });
    await sleep(300);
    expect(other).toEqual([]); // the member of another auction saw none of it
  });

  it('sends nothing for rows the filter leaves out', async () => {
    const got: unknown[] = [];
    const [other] = await server.db.sql<{ id: string }[]>`
      insert into public.channels (auction_id, name) values (${auction.auctionId}, 'other') returning id`;
    const ch = owner.client
      .channel('filtered')
      .on(
        'postgres_changes',
        { event: 'INSERT', schema: 'public', table: 'messages', filter: `channel_id=eq.${other!.id}` },
        (p) => got.push(p.new),
      );
    await subscribed(ch);
    await server.db.sql`insert into public.messages (auction_id, channel_id, user_id, content)
      values (${auction.auctionId}, ${auction.channelId}, ${owner.id}, 'not for you'),
             (${auction.auctionId}, ${other!.id}, ${owner.id}, 'for you')`;
    await until(() => got.length === 1, 'the matching insert');
    await sleep(200);
    expect(got).toEqual([expect.objectContaining({ content: 'for you' })]);
  });

  it('channels without a filter that join or leave between changes get the changes of their time only', async () => {
    const insert = (content: string) =>
      server.db.sql`insert into public.messages (auction_id, channel_id, user_id, content)
        values (${auction.auctionId}, ${auction.channelId}, ${owner.id}, ${content})`;
    const unfiltered = (name: string, into: string[]) =>
      owner.client
        .channel(name)
        .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'messages' }, (p) =>
          into.push(String((p.new as Row).content)),
        );
    const first: string[] = [];
    const second: string[] = [];
    const early = unfiltered('unfiltered-1', first);
    await subscribed(early);
    await insert('shared 1');
    await until(() => first.includes('shared 1'), 'the first change');
    const late = unfiltered('unfiltered-2', second);
    await subscribed(late);
    await insert('shared 2');
    await until(() => first.includes('shared 2') && second.includes('shared 2'), 'the second change on both');
    await owner.client.removeChannel(early);
    await insert('shared 3');
    await until(() => second.includes('shared 3'), 'the third change');
    await sleep(200);
    const ours = (got: string[]) => got.filter((c) => c.startsWith('shared '));
    expect(ours(first)).toEqual(['shared 1', 'shared 2']);
    expect(ours(second)).toEqual(['shared 2', 'shared 3']);
    await owner.client.removeChannel(late);
  });

  it('delivers 1,000 inserts made right after SUBSCRIBED, none missing, in commit order', async () => {
    const seen: number[] = [];
    const ch = owner.client
      .channel('burst')
      .on(
        'postgres_changes',
        { event: 'INSERT', schema: 'public', table: 'messages', filter: `channel_id=eq.${auction.channelId}` },
        (p) => seen.push(Number((p.new as Row).content)),
      );
    await subscribed(ch);
    const sql = server.db.sql;
    // Four writers at once, each committing its own sequence in order: a sequence delivered out of order
    // would mean delivery does not follow commit order.
    await Promise.all(
      Array.from({ length: 4 }, (_, worker) =>
        (async () => {
          for (let i = worker; i < 1000; i += 4)
            await sql`insert into public.messages (auction_id, channel_id, user_id, content)
                      values (${auction.auctionId}, ${auction.channelId}, ${owner.id}, ${String(i)})`;
        })(),
      ),
    );
    await until(() => seen.length === 1000, '1,000 inserts', 30_000);
    expect(new Set(seen).size).toBe(1000);
    for (let worker = 0; worker < 4; worker++) {
      const sequence = seen.filter((n) => n % 4 === worker);
      expect(sequence).toEqual([...sequence].sort((a, b) => a - b));
    }
  });

  it('refuses a binding to a table that is not subscribable, and a malformed filter, with the reason', async () => {
    const bad = owner.client
      .channel('bad')
      .on('postgres_changes', { event: '*', schema: 'public', table: 'recent_submissions' }, () => {});
    await expect(subscribed(bad)).rejects.toThrow('not a subscribable table');
    const badFilter = owner.client
      .channel('bad-filter')
      .on(
        'postgres_changes',
        { event: '*', schema: 'public', table: 'messages', filter: 'channel_id=like.x' },
        () => {},
      );
    await expect(subscribed(badFilter)).rejects.toThrow('invalid filter');
  });
});
