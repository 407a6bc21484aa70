// REALTIME_MAX_CONNECTIONS_PER_IP across two server processes on one database: connections on either count
// against one limit, a closed connection frees its place, the leases of a crashed instance are swept, and those of
// an instance swept while alive are taken again.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestServer, type TestServer } from './support/test-server.js';
import { startRealtimeServer, until } from './realtime.fixture.js';

let first: TestServer;
let second: TestServer;
const sockets: WebSocket[] = [];

beforeAll(async () => {
  first = await startRealtimeServer({ REALTIME_MAX_CONNECTIONS_PER_IP: '2' });
  second = await startTestServer(
    { JWT_SECRET: first.jwtSecret, WORKERS_ENABLED: 'false', REALTIME_MAX_CONNECTIONS_PER_IP: '2' },
    { db: first.db },
  );
});

afterEach(async () => {
  for (const ws of sockets.splice(0)) ws.terminate();
  await until(async () => (await leaseCount()) === 0, 'the leases to go');
  // The per-address counts follow the leases down to nothing: no address keeps a row, none a count gone astray.
  expect(await first.db.sql`select client_ip, open from realtime.connection_counts`).toEqual([]);
});

afterAll(async () => {
  await second?.stop();
  await first?.stop();
});

/** The count kept for each address, beside the leases counted by hand. */
async function countsAndLeases(): Promise<{ kept: unknown[]; counted: unknown[] }> {
  const kept = await first.db.sql`select client_ip, open from realtime.connection_counts order by 1`;
  const counted = await first.db.sql`
    select client_ip, count(*)::int as open from realtime.connections group by 1 order by 1`;
  return { kept: [...kept], counted: [...counted] };
}

async function leaseCount(): Promise<number> {
  const [row] = await first.db.sql<{ n: number }[]>`select count(*)::int as n from realtime.connections`;
  return row!.n;
}

/** Opens a connection; resolves with the socket once open, or with the refusal's status. */
function connect(server: TestServer): Promise<WebSocket | number> {
  const ws = new WebSocket(
    `${server.url.replace('http', 'ws')}/realtime/v1/websocket?apikey=${server.anonKey}&vsn=2.0.0`,
  );
  sockets.push(ws);
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, response) => resolve(response.statusCode ?? 0));
    ws.once('error', reject);
  });
}

describe('connections per client address across processes', () => {
  it('one on each server uses up the limit of two; closing one frees a place', async () => {
    const a = await connect(first);
    expect(a).toBeInstanceOf(WebSocket);
    expect(await connect(second)).toBeInstanceOf(WebSocket);
    expect(await connect(first)).toBe(429);
    expect(await connect(second)).toBe(429);
    (a as WebSocket).close();
    await until(async () => (await leaseCount()) === 1, 'the closed connection to release its lease');
    expect(await connect(second)).toBeInstanceOf(WebSocket);
  });

  it('upgrades arriving together at both servers cannot all pass', async () => {
    const results = await Promise.all([first, second, first, second, first, second].map(connect));
    expect(results.filter((r) => r instanceof WebSocket)).toHaveLength(2);
    expect(results.filter((r) => r === 429)).toHaveLength(4);
    const { kept, counted } = await countsAndLeases();
    expect(kept).toEqual(counted);
    expect(kept).toEqual([expect.objectContaining({ open: 2 })]);
  });

  it('an instance swept while alive takes the leases of its open connections again when it next announces itself', async () => {
    const ws = await connect(first);
    expect(ws).toBeInstanceOf(WebSocket);
    const [lease] = await first.db.sql<{ instance_id: string }[]>`select instance_id from realtime.connections`;
    await first.db.sql`delete from realtime.instances where id = ${lease!.instance_id}`;
    expect(await leaseCount()).toBe(0);
    await until(async () => (await leaseCount()) === 1, 'the lease taken again', 15_000);
  });

  it('the leases of an instance that stopped announcing itself (a crash) are swept', async () => {
    const ws = (await connect(first)) as WebSocket;
    const [lease] = await first.db.sql<{ client_ip: string }[]>`select client_ip from realtime.connections`;
    ws.close();
    await until(async () => (await leaseCount()) === 0, 'the lease to go');
    // A process that died holding two connections of this address: its row stopped being refreshed long ago.
    await first.db.sql`insert into realtime.instances (id, seen_at) values ('crashed', now() - interval '1 hour')`;
    await first.db.sql`insert into realtime.connections (id, client_ip, instance_id)
                       values ('c1', ${lease!.client_ip}, 'crashed'), ('c2', ${lease!.client_ip}, 'crashed')`;
    expect(await connect(first)).toBe(429);
    expect((await countsAndLeases()).kept).toEqual([{ client_ip: lease!.client_ip, open: 2 }]);
    // The next heartbeat of a live instance (every 5 s) sweeps the silent one and its leases.
    await until(async () => (await leaseCount()) === 0, 'the sweep', 15_000);
    expect(await connect(first)).toBeInstanceOf(WebSocket);
  });
});
