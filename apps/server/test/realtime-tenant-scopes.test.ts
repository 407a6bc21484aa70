// Tenant scopes (realtime migration 0006, domain-realtime 0006): a change is checked only for the subscriber groups
// of its auction. What must still hold: members of one class all receive, a member of another auction receives
// nothing of this one even when both auctions' changes share a check, members of both and super admins (tenants
// not limited) receive both, and a new membership takes effect for the changes after it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from './support/test-server.js';
import {
  arrangeAuction,
  signUp,
  sleep,
  startRealtimeServer,
  subscribed,
  until,
  type RealtimeUser,
} from './realtime.fixture.js';

let server: TestServer;
let first: RealtimeUser;
let second: RealtimeUser;
let outsider: RealtimeUser;
let both: RealtimeUser;
let superAdmin: RealtimeUser;
let auctionA: { auctionId: string; channelId: string };
let auctionB: { auctionId: string; channelId: string };

beforeAll(async () => {
  server = await startRealtimeServer();
  [first, second, outsider, both, superAdmin] = await Promise.all(
    ['first', 'second', 'outsider', 'both', 'super'].map((name) => signUp(server, name)),
  );
  auctionA = await arrangeAuction(server, [
    [first, 'team_member'],
    [second, 'team_member'],
    [both, 'team_member'],
  ]);
  auctionB = await arrangeAuction(server, [
    [outsider, 'owner'],
    [both, 'admin'],
  ]);
  await server.db.sql`insert into public.super_admins (user_id) values (${superAdmin.id})`;
});

afterAll(async () => {
  for (const u of [first, second, outsider, both, superAdmin]) await u?.client.removeAllChannels();
  await server?.stop();
});

/** Subscribes each user to message inserts; answers what each receives (content), by user. */
async function listen(users: RealtimeUser[], name: string): Promise<Map<RealtimeUser, string[]>> {
  const seen = new Map(users.map((u) => [u, [] as string[]]));
  await Promise.all(
    users.map((u) =>
      subscribed(
        u.client
          .channel(`${name}-${u.id}`)
          .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'messages' }, (p) =>
            seen.get(u)!.push((p.new as { content: string }).content),
          ),
      ),
    ),
  );
  return seen;
}

async function post(auction: { auctionId: string; channelId: string }, ...contents: string[]): Promise<void> {
  const sql = server.db.sql;
  // One transaction: the changes of both auctions reach the router together and share one check.
  await sql.begin(async (tx) => {
    for (const content of contents)
      await tx`insert into public.messages (auction_id, channel_id, content)
               values (${auction.auctionId}, ${auction.channelId}, ${content})`;
  });
}

describe('tenant scopes', () => {
  it('delivers each auction’s rows to its own members only, even when both auctions’ changes are checked together', async () => {
    const seen = await listen([first, second, outsider, both, superAdmin], 'scoped');
    const sql = server.db.sql;
    await sql.begin(async (tx) => {
      await tx`insert into public.messages (auction_id, channel_id, content)
               values (${auctionA.auctionId}, ${auctionA.channelId}, 'a1'),
                      (${auctionB.auctionId}, ${auctionB.channelId}, 'b1'),
                      (${auctionA.auctionId}, ${auctionA.channelId}, 'a2')`;
    });
    await until(
      () => seen.get(both)!.length === 3 && seen.get(superAdmin)!.length === 3 && seen.get(outsider)!.length === 1,
      'the messages',
    );
    await sleep(300);
    expect(seen.get(first)).toEqual(['a1', 'a2']);
    expect(seen.get(second)).toEqual(['a1', 'a2']);
    // The member of the other auction must not receive A's rows.
    expect(seen.get(outsider)).toEqual(['b1']);
    expect(seen.get(both)).toEqual(['a1', 'b1', 'a2']);
    expect(seen.get(superAdmin)).toEqual(['a1', 'b1', 'a2']);
    for (const u of [first, second, outsider, both, superAdmin]) await u.client.removeAllChannels();
  });

  it('a new membership takes effect for the changes after it', async () => {
    const seen = await listen([outsider], 'joining');
    await post(auctionA, 'before');
    await post(auctionB, 'own');
    await until(() => seen.get(outsider)!.length === 1, 'the own auction’s message');
    await server.db.sql`insert into public.auction_members (auction_id, user_id, role)
                        values (${auctionA.auctionId}, ${outsider.id}, 'team_member')`;
    await post(auctionA, 'after');
    await until(() => seen.get(outsider)!.includes('after'), 'the message after joining');
    expect(seen.get(outsider)).toEqual(['own', 'after']);
    await outsider.client.removeAllChannels();
  });
});
