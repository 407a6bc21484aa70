// The chat's unread rollups (0015): exact after the backfill and the seed, after soft and hard deletes and moves of messages, and under 16 concurrent writers; get_unread_counts answers exactly as 0006's did (kept here in
// a `legacy` schema) for every member, with read points on, before and after a UTC midnight and none at all.
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { authMigrations } from '@auction-ops/auth-core';
import { domainMigrations, seedDemo, type SeedResult } from '../src/index.js';
import { asUser, claimsFor, closeClients } from './support/as-user.js';
import { createLegacyFunctions } from './support/legacy-functions.js';

let db: TestDatabase;
let seeded: SeedResult;
const NOW = new Date('2030-03-01T18:00:00Z');

beforeAll(async () => {
  db = await createTestDatabase([authMigrations, domainMigrations]);
  // 0006's get_unread_counts: the reference the rollup-backed one must match.
  await createLegacyFunctions(
    db.sql,
    '0006-chat.sql',
    'create function public.get_unread_counts',
    'create function public.get_total_unread_count',
  );
  seeded = await seedDemo(db.sql, { scale: 1, days: 10, now: NOW, hashPassword: async (p) => `plain:${p}` });
});
afterAll(async () => {
  await closeClients();
  await db.drop();
});

const differences = () => db.sql`select * from analytics.differences()`;

/** Runs writes that messages_check (0006) would refuse or rewrite: moves, set timestamps. The rollups must stay
 * exact for any write, not only those the API allows today. */
async function withoutMessageGuard(fn: (tx: postgres.TransactionSql) => Promise<unknown>): Promise<void> {
  await db.sql.begin(async (tx) => {
    await tx`alter table public.messages disable trigger messages_check`;
    await fn(tx);
    await tx`alter table public.messages enable trigger messages_check`;
  });
}

/** Every member's unread counts in every auction, from the schema named. */
async function answers(schema: 'public' | 'legacy'): Promise<unknown[]> {
  const members = await db.sql`select user_id, auction_id from public.auction_members order by 1, 2`;
  const out: unknown[] = [];
  for (const m of members) {
    out.push(
      await asUser(
        db.requestUrl,
        claimsFor(m.user_id),
        (tx) => tx`select * from ${tx(schema)}.get_unread_counts(${m.auction_id})`,
      ),
    );
  }
  return out;
}

async function expectSameAnswersAsBefore(): Promise<void> {
  const now = await answers('public');
  expect(now.some((r) => (r as { unread_count: number }[]).some((c) => c.unread_count > 0))).toBe(true);
  expect(now).toEqual(await answers('legacy'));
}

describe('after the seed', () => {
  it('the rollups match their rows', async () => {
    expect(await differences()).toEqual([]);
    const [n] = await db.sql`select count(*)::int as n from analytics.channel_message_days`;
    expect(n!.n).toBeGreaterThan(20);
  });

  it("get_unread_counts answers as 0006's did, for every member", expectSameAnswersAsBefore);

  it('read points at, just before and just after a UTC midnight, and none (counted from joining)', async () => {
    const states = await db.sql`select user_id, channel_id from public.channel_read_state order by md5(user_id::text
      || channel_id::text) limit 40`;
    const points = ['2030-02-27T00:00:00Z', '2030-02-26T23:59:59.999999Z', '2030-02-27T00:00:00.000001Z'];
    for (const [i, s] of states.entries()) {
      if (i % 4 === 3) {
        await db.sql`delete from public.channel_read_state where user_id = ${s.user_id} and channel_id = ${s.channel_id}`;
      } else {
        await db.sql`update public.channel_read_state set last_read_at = ${points[i % 4]!}
          where user_id = ${s.user_id} and channel_id = ${s.channel_id}`;
      }
    }
    // A message exactly at a read point is not unread (created_at > last_read_at).
    const [m] = await db.sql`select channel_id, auction_id, user_id from public.messages limit 1`;
    await withoutMessageGuard(
      (tx) => tx`insert into public.messages (auction_id, channel_id, user_id, content, created_at)
        values (${m!.auction_id}, ${m!.channel_id}, ${m!.user_id}, 'at midnight', ${points[0]!})`,
    );
    await expectSameAnswersAsBefore();
  });
});

describe('writes keep the rollups exact', () => {
  it('soft and hard deletes, moves to another channel or day, another author', async () => {
    const sql = db.sql;
    const some = (n: number, offset: number) =>
      sql`select id from public.messages order by md5(id::text) limit ${n} offset ${offset}`.then((r) =>
        r.map((x) => x.id as string),
      );
    await sql`update public.messages set is_deleted = true where id = any(${await some(40, 0)})`;
    expect(await differences()).toEqual([]);

    const [moved, otherChannel, otherAuthor] = [await some(30, 40), await some(20, 70), await some(20, 90)];
    await withoutMessageGuard(async (tx) => {
      await tx`update public.messages set created_at = created_at + interval '13 hours' where id = any(${moved})`;
      const moves = await tx`update public.messages m set channel_id = c.id from public.channels c
        where m.id = any(${otherChannel}) and c.auction_id = m.auction_id and c.id <> m.channel_id
          and c.id = (select min(x.id::text)::uuid from public.channels x where x.auction_id = m.auction_id
            and x.id <> m.channel_id)`;
      expect(moves.count).toBeGreaterThan(0);
      await tx`update public.messages m set user_id = (select am.user_id from public.auction_members am
          where am.auction_id = m.auction_id and am.user_id is distinct from m.user_id order by am.user_id limit 1)
        where id = any(${otherAuthor})`;
    });
    expect(await differences()).toEqual([]);

    await sql`delete from public.messages where id = any(${await some(25, 110)})`;
    expect(await differences()).toEqual([]);
    await expectSameAnswersAsBefore();
  });

  it('a message posted by a member through their own request is counted for the others', async () => {
    const [m] = await db.sql`select am.user_id, c.id as channel_id, c.auction_id from public.channels c
      join public.auction_members am on am.auction_id = c.auction_id where not c.is_archived limit 1`;
    await asUser(
      db.requestUrl,
      claimsFor(m!.user_id),
      (tx) => tx`insert into public.messages (auction_id, channel_id, user_id, content)
        values (${m!.auction_id}, ${m!.channel_id}, ${m!.user_id}, 'posted now')`,
    );
    expect(await differences()).toEqual([]);
    await expectSameAnswersAsBefore();
  });

  it('deleting a channel or an auction takes its rollup rows along', async () => {
    const bayside = seeded.auctions[1]!.id;
    const [channel] = await db.sql`select id from public.channels where auction_id = ${bayside} limit 1`;
    await db.sql`delete from public.channels where id = ${channel!.id}`;
    expect(await differences()).toEqual([]);
    await db.sql`delete from public.auctions where id = ${bayside}`;
    expect(await differences()).toEqual([]);
    const [rows] = await db.sql`select
      (select count(*) from analytics.channel_message_days where auction_id = ${bayside})
      + (select count(*) from analytics.channel_author_days where auction_id = ${bayside}) as n`;
    expect(Number(rows!.n)).toBe(0);
  });
});

describe('verify and rebuild', () => {
  it('differences() names a chat bucket that no longer matches its rows, and rebuild() repairs it', async () => {
    await db.sql`update analytics.channel_message_days set messages = messages + 1
      where (channel_id, day) in (select channel_id, day from analytics.channel_message_days limit 1)`;
    const diffs = await differences();
    expect(diffs).toHaveLength(1);
    expect(diffs[0]).toMatchObject({ rollup: 'channel_message_days', location_id: null });
    expect(diffs[0]!.stored).toBe(diffs[0]!.expected + 1);
    await db.sql`select analytics.rebuild()`;
    expect(await differences()).toEqual([]);
  });
});

describe('16 concurrent writers', () => {
  it('lose no update: each posts into the same channel at once', async () => {
    const [c] = await db.sql`select c.id, c.auction_id, (select array_agg(user_id) from public.auction_members
        where auction_id = c.auction_id) as users
      from public.channels c where not c.is_archived limit 1`;
    // The server stamps created_at (now), so every writer's message lands in today's bucket.
    const read = async () => {
      const [r] = await db.sql`select
        (select coalesce(sum(messages), 0) from analytics.channel_message_days where channel_id = ${c!.id})::int as total,
        (select coalesce(sum(messages), 0) from analytics.channel_author_days where channel_id = ${c!.id})::int as by_author`;
      return r!;
    };
    const before = await read();
    const WRITERS = 16;
    const ROUNDS = 5;
    const clients = Array.from({ length: WRITERS }, () => postgres(db.ownerUrl, { max: 1, onnotice: () => {} }));
    try {
      await Promise.all(
        clients.map(async (client, w) => {
          for (let r = 0; r < ROUNDS; r++) {
            await client`insert into public.messages (auction_id, channel_id, user_id, content)
              values (${c!.auction_id}, ${c!.id}, ${c!.users[w % c!.users.length]}, ${`w${w} r${r}`})`;
          }
        }),
      );
    } finally {
      await Promise.all(clients.map((client) => client.end()));
    }
    const after = await read();
    expect(after.total - before.total).toBe(WRITERS * ROUNDS);
    expect(after.by_author - before.by_author).toBe(WRITERS * ROUNDS);
    expect(await differences()).toEqual([]);
  });
});
