// Our patch of postgres.js (patches/postgres@3.4.9.patch; upstream porsager/postgres#1208): a query on a reserved
// connection whose server went away used to throw from a setImmediate (uncaught: the whole process went down, as a
// server worker did when PostgreSQL was killed under load), and its release put the dead connection back as open, so
// later queries failed with CONNECTION_CLOSED for good. Patched, the query rejects and the pool reconnects.
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, startTcpRelay, type TestDatabase } from '../src/testing/index.js';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase([]);
});

afterAll(async () => {
  await db?.drop();
});

it('a query on a reserved connection whose server is gone rejects instead of crashing the process', async () => {
  const relay = await startTcpRelay(db.requestUrl);
  const sql = postgres(relay.url, { max: 1, onnotice: () => {} });
  const crashes: unknown[] = [];
  const onUncaught = (error: unknown) => crashes.push(error);
  process.on('uncaughtException', onUncaught);
  try {
    const reserved = await sql.reserve();
    await reserved`select 1`;
    await relay.close();
    await new Promise((r) => setTimeout(r, 200)); // the close is seen; the reservation keeps the dead connection
    await expect(reserved`select 1`).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
    await new Promise((r) => setImmediate(r));
    expect(crashes).toEqual([]);
    // Released, the dead connection goes back to the pool as closed, not as open: the next query reconnects.
    reserved.release();
    await relay.open();
    expect(await sql`select 1 as one`).toEqual([{ one: 1 }]);
  } finally {
    process.off('uncaughtException', onUncaught);
    await sql.end({ timeout: 0 });
    await relay.close();
  }
});
