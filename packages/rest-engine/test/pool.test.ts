// The request pool: a request that finds no free connection within poolTimeoutMs gets PGRST003 (504), and the
// connection it was still queued for goes back to the pool; a connection the server ends under a request is a 503.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setup, type Harness } from './helpers.js';

let h: Harness;
// A pool of one connection; no LISTEN, this file never reloads the schema.
beforeAll(async () => {
  h = await setup({ poolTimeoutMs: 100, listen: false }, 1);
});
afterAll(async () => {
  await h.close();
});

async function untilSleeping(harness = h): Promise<void> {
  for (;;) {
    const rows = await harness.db.sql`select 1 from pg_stat_activity
        where query like '%sleep_ms%' and state = 'active' and pid <> pg_backend_pid()`;
    if (rows.length) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('pool timeout', () => {
  it('answers PGRST003 504 while the only connection is held, then serves again', async () => {
    const slow = h.req('GET', '/rpc/sleep_ms?ms=600');
    await untilSleeping();
    const starved = await h.req('GET', '/users?select=id&id=eq.1');
    expect(starved).toMatchObject({
      status: 504,
      json: {
        code: 'PGRST003',
        message: 'Timed out acquiring connection from connection pool.',
        details: null,
        hint: null,
      },
    });
    expect(await slow).toMatchObject({ status: 204 });
    // The abandoned reservation was released: the single connection serves the next requests.
    expect(await h.req('GET', '/users?select=id&id=eq.1')).toMatchObject({ status: 200, json: [{ id: 1 }] });
    expect(await h.req('GET', '/users?select=id&id=eq.2')).toMatchObject({ status: 200, json: [{ id: 2 }] });
  });
});

// A fresh engine: its first request's statements are still to be described (prepared), so the later ones wait in
// the reservation's own queue, where postgres.js left them unsettled when the connection closed (the request hung
// for ever); and the server's FATAL error must not reach the next connection's first query (patches/postgres).
describe('a connection ended by the server under a request', () => {
  let fresh: Harness;
  beforeAll(async () => {
    fresh = await setup({ poolTimeoutMs: 1000, listen: false }, 1);
  });
  afterAll(async () => {
    await fresh.close();
  });

  it('answers 503 (as PostgREST does for a lost connection), and the next request is served', async () => {
    const slow = fresh.req('GET', '/rpc/sleep_ms?ms=5000');
    await untilSleeping(fresh);
    await fresh.db.sql`select pg_terminate_backend(pid) from pg_stat_activity
      where query like '%sleep_ms%' and state = 'active' and pid <> pg_backend_pid()`;
    expect(await slow).toMatchObject({ status: 503 });
    expect(await fresh.req('GET', '/users?select=id&id=eq.1')).toMatchObject({ status: 200, json: [{ id: 1 }] });
  });
});
