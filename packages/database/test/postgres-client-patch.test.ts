// Our patch of postgres.js (patches/postgres@3.4.9.patch, fixes 1 to 6 of patches/README.md): a query on a reserved
// connection whose server went away used to throw from a setImmediate (uncaught: the whole process went down, as a
// server worker did when PostgreSQL was killed under load), and its release put the dead connection back as open, so
// later queries failed with CONNECTION_CLOSED for good. Patched, the query rejects and the pool reconnects. Queries
// waiting in a reservation's own queue when its connection closed were never settled; patched, they reject. The FATAL
// error of a terminated backend was kept and rejected the next connection's first query; patched, that query runs.
// And a COPY FROM that the server refuses after the stream's end() (import-csv's last batch) never finished, until
// the next command on the connection made it finish as if it had succeeded; patched, it fails with the server's error.
// And a COPY TO read slowly could leave the socket paused at its end, so the next query never completed (fix 6).
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
  let seeClose = () => {};
  const closeSeen = new Promise<void>((resolve) => (seeClose = resolve));
  const sql = postgres(relay.url, { max: 1, onnotice: () => {}, onclose: () => seeClose() });
  const crashes: unknown[] = [];
  const onUncaught = (error: unknown) => crashes.push(error);
  process.on('uncaughtException', onUncaught);
  try {
    const reserved = await sql.reserve();
    await reserved`select 1`;
    await relay.close();
    await closeSeen; // the client has seen the close; the reservation keeps the dead connection
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

/** What a promise came to within `ms`: its value, its error, or 'still waiting'. */
function settledWithin(promise: Promise<unknown>, ms: number): Promise<unknown> {
  return Promise.race([
    promise.then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    ),
    new Promise((r) => setTimeout(() => r('still waiting'), ms)),
  ]);
}

/** Waits until the backend `pid` is running `pg_sleep` (the query the test means to interrupt), 5 s at most. */
async function sleeping(pid: number): Promise<void> {
  for (let i = 0; i < 250; i++) {
    const [row] = await db.sql`select count(*)::int as n from pg_stat_activity
      where pid = ${pid} and state = 'active' and query like '%pg_sleep%'`;
    if (row.n === 1) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`backend ${pid} never ran its pg_sleep`);
}

/** Terminates the backend `pid` (57P01 to its client) and waits until it is gone. */
async function terminate(pid: number): Promise<void> {
  await db.sql`select pg_terminate_backend(${pid})`;
  for (let i = 0; i < 100; i++) {
    const [row] = await db.sql`select count(*)::int as n from pg_stat_activity where pid = ${pid}`;
    if (row.n === 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

it('a query waiting in a reservation whose connection closes is rejected, not left waiting (fix 3)', async () => {
  const sql = postgres(db.ownerUrl, { max: 1, onnotice: () => {} });
  try {
    const reserved = await sql.reserve();
    const [{ pid }] = await reserved<Array<{ pid: number }>>`select pg_backend_pid() as pid`;
    // A first query with a parameter is described before it runs: the connection is full meanwhile, so the next
    // query waits in the reservation's own queue rather than on the connection.
    const running = settledWithin(reserved`select pg_sleep(30), ${1}::int`, 5_000);
    const waiting = settledWithin(reserved`select 1 as one`, 5_000);
    await sleeping(pid);
    await terminate(pid);
    expect(await running).toMatchObject({ error: expect.anything() });
    expect(await waiting).toMatchObject({ error: { code: 'CONNECTION_CLOSED' } });
    reserved.release();
    expect(await sql`select 1 as one`).toEqual([{ one: 1 }]);
  } finally {
    await sql.end({ timeout: 0 });
  }
});

it("a terminated backend's FATAL error does not reject the next connection's first query (fix 4)", async () => {
  const sql = postgres(db.ownerUrl, { max: 1, onnotice: () => {} });
  try {
    const [{ pid }] = await sql<Array<{ pid: number }>>`select pg_backend_pid() as pid`;
    const running = settledWithin(sql`select pg_sleep(30)`, 5_000);
    await sleeping(pid);
    await terminate(pid);
    expect(await running).toMatchObject({ error: expect.anything() });
    // The pool reconnects for this query; the old connection's 57P01 must not be its answer.
    expect(await settledWithin(sql`select 1 as one`, 5_000)).toEqual({ value: [{ one: 1 }] });
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
