// A server opens its pools' connections as it starts, not under its first requests; a pool that cannot connect does
// not hold the start past the wait it was given.
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../src/testing/index.js';
import { openConnections } from '../src/index.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase([]);
});
afterAll(async () => {
  await db.drop();
});

it('opens as many connections as asked, each a backend of its own', async () => {
  const name = `open-connections-${process.pid}`;
  const pool = postgres(db.requestUrl, { max: 6, onnotice: () => {}, connection: { application_name: name } });
  try {
    expect(await openConnections(pool, 6, 10_000)).toBe(6);
    const [{ n }] = await db.sql<[{ n: number }]>`
      select count(*)::int as n from pg_stat_activity where application_name = ${name}`;
    expect(n).toBe(6);
  } finally {
    await pool.end({ timeout: 5 });
  }
});

it('returns after its wait when the database never answers, with none opened', async () => {
  // Accepts connections and says nothing: a pooler or network that hangs.
  const sockets: Socket[] = [];
  const silent: Server = createServer((s) => void sockets.push(s));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const { port } = silent.address() as AddressInfo;
  const pool = postgres({ host: '127.0.0.1', port, user: 'nobody', max: 3, connect_timeout: 60 });
  try {
    const began = Date.now();
    expect(await openConnections(pool, 3, 300)).toBe(0);
    // Bounded by the wait, not by the pool's 60 s connect timeout.
    expect(Date.now() - began).toBeLessThan(30_000);
    expect(sockets.length).toBeGreaterThan(0);
  } finally {
    for (const s of sockets) s.destroy();
    await pool.end({ timeout: 0 }).catch(() => {});
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  }
});
