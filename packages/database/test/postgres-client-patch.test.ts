// Our patch of postgres.js (fixes 1, 2, 5 and 6 of patches/README.md): a query on a reserved
// connection whose server went away used to throw from a setImmediate (uncaught: the whole process went down, as a
// server worker did when PostgreSQL was killed under load), and its release put the dead connection back as open, so
// later queries failed with CONNECTION_CLOSED for good. Patched, the query rejects and the pool reconnects. And a
// COPY FROM that the server refuses after the stream's end() (import-csv's last batch) never finished, until the next
// command on the connection made it finish as if it had succeeded; patched, it fails with the server's error. And
// a COPY TO read slowly could leave the socket paused at its end, so the next query never completed.
import { finished } from 'node:stream/promises';
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

it('a COPY FROM refused after its end() fails its stream with the error, and the connection goes on', async () => {
  await db.sql`create table copy_checked (n int check (n < 100))`;
  const sql = postgres(db.ownerUrl, { max: 1, onnotice: () => {} });
  try {
    const reserved = await sql.reserve();
    const stream = await reserved`copy copy_checked from stdin with (format csv)`.writable();
    const done = finished(stream);
    stream.write('1\n2\n');
    // The refused row is in the last write: the server reads it after the client has ended the stream.
    stream.end('300\n');
    await expect(done).rejects.toMatchObject({ code: '23514' });
    expect(await reserved`select count(*)::int as n from copy_checked`).toEqual([{ n: 0 }]);
    reserved.release();
  } finally {
    await sql.end({ timeout: 0 });
  }
});

it('a COPY TO read slower than it arrives ends, and the next query on its connection completes', async () => {
  const sql = postgres(db.ownerUrl, { max: 1, onnotice: () => {} });
  try {
    await sql.begin(async (tx) => {
      for (let round = 0; round < 5; round++) {
        const stream =
          await tx`copy (select n, repeat('x', 200) from generate_series(1, 20000) n) to stdout`.readable();
        let rows = 0;
        for await (const chunk of stream) {
          rows += (chunk as Buffer).toString().split('\n').length - 1;
          // A slow reader: the stream's buffer fills and the client pauses the socket.
          await new Promise((r) => setImmediate(r));
        }
        expect(rows).toBe(20000);
        expect(await tx`select ${round}::int as round`).toEqual([{ round }]);
      }
    });
  } finally {
    await sql.end({ timeout: 0 });
  }
});
