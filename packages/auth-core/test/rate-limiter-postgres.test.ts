// The Postgres counter store, shared by every instance on the database: one statement per check whatever the
// number of windows, counts that agree with the memory store's, and windows that start over.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import postgres from 'postgres';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { authMigrations, postgresRateLimitStore, RateLimiter } from '../src/index.js';

let db: TestDatabase;
let sql: postgres.Sql;
const statements: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase([authMigrations]);
  sql = postgres(db.ownerUrl, { max: 2, onnotice: () => {}, debug: (_conn, query) => statements.push(query) });
});
afterAll(async () => {
  await sql?.end();
  await db?.drop();
});

/** The start of an hour to come: windows of the test's clock must not have ended (a hit sweeps ended ones). */
const futureHour = (n: number) => (Math.floor(Date.now() / 3_600_000) + n) * 3_600_000;

const RULES = [
  { limit: 3, windowSeconds: 60 },
  { limit: 10, windowSeconds: 3600 },
];

describe('postgresRateLimitStore', () => {
  it('counts a minute and an hour window in one statement', async () => {
    let now = futureHour(2) + 30_000;
    const limiter = new RateLimiter(postgresRateLimitStore(sql), () => now);
    statements.length = 0;
    const first = await limiter.checkWindows('rest', '10.0.0.1', RULES, 2);
    expect(statements.filter((q) => /insert into auth\.rate_limits/i.test(q))).toHaveLength(1);
    expect(first.map((r) => [r.allowed, r.remaining])).toEqual([
      [true, 1],
      [true, 8],
    ]);
    const second = await limiter.checkWindows('rest', '10.0.0.1', RULES, 2);
    expect(second.map((r) => [r.allowed, r.remaining])).toEqual([
      [false, 0],
      [true, 6],
    ]);
    // The next minute starts over; the hour keeps counting.
    now += 60_000;
    const third = await limiter.checkWindows('rest', '10.0.0.1', RULES);
    expect(third.map((r) => r.remaining)).toEqual([2, 5]);
    expect((await limiter.checkWindows('rest', '10.0.0.2', RULES)).map((r) => r.remaining)).toEqual([2, 9]);
  });

  it('loses no hit when instances count at once', async () => {
    const now = futureHour(4);
    const limiters = [0, 1, 2].map(() => new RateLimiter(postgresRateLimitStore(sql), () => now));
    await Promise.all(Array.from({ length: 30 }, (_, i) => limiters[i % 3].checkWindows('rest', '10.0.0.9', RULES)));
    const rows = await sql<{ key: string; hits: number }[]>`
      select key, hits from auth.rate_limits where key like 'rest:%:10.0.0.9' order by key`;
    expect(rows).toEqual([
      { key: 'rest:0:10.0.0.9', hits: 30 },
      { key: 'rest:1:10.0.0.9', hits: 30 },
    ]);
  });
});
