// After an outage with many failed connection attempts, a pool with reconnectBackoff answers soon after the database
// comes back. (postgres.js's default backoff grows with the pool's failures up to 20 s, measured at over 3 s after
// eight failures; that is the library's behaviour, not tested here, and why every pool sets the option.)
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

  it('a pool answers soon after the database comes back, however many attempts failed during the outage', async () => {
    // A second of backoff at most, plus a connection: the bound leaves room for a loaded machine.
    expect(await recoveryMs({ backoff: reconnectBackoff }, 8)).toBeLessThan(5000);
  }, 60_000);
});
