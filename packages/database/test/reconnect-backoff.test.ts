// After an outage with many failed connection attempts, a pool with reconnectBackoff answers within about a second
// of the database coming back; with postgres.js's default backoff the same pool is still waiting (up to 20 s).
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconnectBackoff } from '../src/index.js';
import { createTestDatabase, startTcpRelay, type TcpRelay, type TestDatabase } from '../src/testing/index.js';

let db: TestDatabase;
const relays: TcpRelay[] = [];

beforeAll(async () => {
  db = await createTestDatabase([]);
});

afterAll(async () => {
  for (const r of relays) await r.close();
  await db?.drop();
});

/** Ms from the database's return until the pool answers, after `failures` queries failed during the outage. */
async function recoveryMs(options: postgres.Options<Record<string, never>>, failures: number): Promise<number> {
  const relay = await startTcpRelay(db.requestUrl);
  relays.push(relay);
  const sql = postgres(relay.url, { max: 2, onnotice: () => {}, ...options });
  try {
    await sql`select 1`;
    await relay.close();
    for (let i = 0; i < failures; i++) await sql`select 1`.catch(() => {});
    await relay.open();
    const back = Date.now();
    await Promise.race([sql`select 1`, new Promise((_, reject) => setTimeout(() => reject(new Error('hung')), 8000))]);
    return Date.now() - back;
  } catch (error) {
    if ((error as Error).message === 'hung') return Number.POSITIVE_INFINITY;
    throw error;
  } finally {
    await sql.end({ timeout: 0 });
  }
}

describe('reconnectBackoff', () => {
  it('starts at 50 ms and never waits more than a second', () => {
    expect(reconnectBackoff(1)).toBe(0.05);
    expect(reconnectBackoff(2)).toBe(0.1);
    expect(reconnectBackoff(50)).toBe(1);
  });

  it('a pool answers within about a second of the database coming back after many failed attempts', async () => {
    expect(await recoveryMs({ backoff: reconnectBackoff }, 8)).toBeLessThan(1500);
  }, 60_000);

  it("postgres.js's default backoff would keep the same pool waiting for seconds (why the option is set)", async () => {
    expect(await recoveryMs({}, 8)).toBeGreaterThan(3000);
  }, 60_000);
});
