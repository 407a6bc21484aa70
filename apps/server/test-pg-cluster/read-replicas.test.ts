// Read replicas end to end: the server on a PostgreSQL 15 primary with two streaming replicas (pg_basebackup -R).
// A read proves where it ran by what it sees: with the replicas' WAL replay paused, a write on the primary is
// invisible to a replica, so a GET returns the old value and the read-your-writes preference the new one.
// Run by scripts/test-pg-cluster.sh (needs Debian's postgresql-15).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@supabase/supabase-js';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installedPostgres, type PgCluster, startPgCluster } from '@auction-ops/database/testing';
import { loadConfig } from '@auction-ops/server-config';
import { type RunningServer, startServer } from '../src/server.js';
import { TEST_CLIENT_OPTIONS } from '../test/support/test-server.js';

const PROBE = `
  create table public.probe (id int primary key, value text not null);
  grant select, insert, update, delete on public.probe to service_role;
  create function public.probe_server() returns json language sql stable
    as $$ select json_build_object('port', inet_server_port(), 'recovery', pg_is_in_recovery()) $$;
  grant execute on function public.probe_server() to service_role;
  notify pgrst, 'reload schema';`;

/** Short, so the lag test waits little; the other tests run no check while a replica's replay is paused. */
const MAX_LAG_MS = 1500;

let cluster: PgCluster;
let server: RunningServer;
let dataDir: string;
let primary: postgres.Sql;
let headers: Record<string, string>;

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Runs `query` on each replica as superuser. */
async function onReplicas<T>(query: (sql: postgres.Sql) => Promise<T>): Promise<T[]> {
  return Promise.all(
    cluster.replicas.map(async (r) => {
      const sql = postgres(r.url, { max: 1, onnotice: () => {} });
      try {
        return await query(sql);
      } finally {
        await sql.end();
      }
    }),
  );
}

/** Waits until every running replica has replayed all WAL the primary has inserted so far (commits included). */
async function replicasCaughtUp(): Promise<void> {
  const [{ lsn }] = await primary<{ lsn: string }[]>`select pg_current_wal_insert_lsn()::text as lsn`;
  await until('the replicas to replay the primary', async () => {
    const behind = await onReplicas(
      async (sql) =>
        (await sql<{ ok: boolean }[]>`select pg_last_wal_replay_lsn() >= ${lsn}::pg_lsn as ok`)[0].ok === false,
    );
    return behind.some(Boolean) ? undefined : true;
  });
}

const rest = (path: string, init: RequestInit = {}) =>
  fetch(`${server.url}/rest/v1${path}`, { ...init, headers: { ...headers, ...(init.headers ?? {}) } });

async function whereRead(init: RequestInit = {}): Promise<{ port: number; recovery: boolean }> {
  const res = await rest('/rpc/probe_server', init);
  expect(res.status).toBe(200);
  return (await res.json()) as { port: number; recovery: boolean };
}

beforeAll(async () => {
  const binDir = installedPostgres();
  if (!binDir) throw new Error('PostgreSQL 15 (postgresql-15) is not installed: run scripts/test-pg-cluster.sh');
  cluster = await startPgCluster({ binDir, replicas: 2 });
  dataDir = mkdtempSync(join(tmpdir(), 'auction-ops-replicas-'));
  server = await startServer(
    loadConfig({
      PORT: '0',
      DATABASE_URL: cluster.primary.url,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      JWT_SECRET: randomBytes(32).toString('base64url'),
      RATE_LIMITS_ENABLED: 'false',
      WORKERS_ENABLED: 'false',
      DATABASE_READ_URLS: cluster.replicas.map((r) => r.url).join(','),
      // No periodic check during the tests: a replica leaves rotation only because a request could not use it, and
      // returns when the test runs a check (the periodic check itself is tested with the replica set).
      DB_READ_CHECK_INTERVAL_MS: '3600000',
      DB_READ_MAX_LAG_MS: String(MAX_LAG_MS),
    }),
  );
  const key = server.ctx.serviceRoleKey;
  headers = { apikey: key, authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  primary = postgres(cluster.primary.url, { max: 2, onnotice: () => {} });
  await primary.unsafe(PROBE);
  await replicasCaughtUp();
  await until('the schema reload', async () => ((await rest('/probe')).status === 200 ? true : undefined));
  // Both replicas in rotation (their first check may have run before the request role had replicated).
  await inRotation();
});

/** Runs health checks until both replicas are in rotation. */
async function inRotation(): Promise<void> {
  await until('both replicas in rotation', async () => {
    await server.ctx.replicas.check();
    return server.ctx.replicas.status().every((s) => s.healthy) ? true : undefined;
  });
}

afterAll(async () => {
  await server?.close();
  await primary?.end();
  await cluster?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('read replicas', () => {
  it('sends GET reads to the replicas in turn and POST to the primary', async () => {
    const reads = [await whereRead(), await whereRead(), await whereRead(), await whereRead()];
    expect(reads.every((r) => r.recovery)).toBe(true);
    // Round robin: the two replicas alternate (which one comes first depends on the reads before this test).
    expect(reads[0].port).not.toBe(reads[1].port);
    expect([reads[2].port, reads[3].port]).toEqual([reads[0].port, reads[1].port]);
    expect([reads[0].port, reads[1].port].sort()).toEqual(cluster.replicas.map((r) => r.port).sort());
    expect(await whereRead({ method: 'POST', body: '{}' })).toEqual({ port: cluster.primary.port, recovery: false });
    expect(await whereRead({ headers: { prefer: 'read-your-writes' } })).toEqual({
      port: cluster.primary.port,
      recovery: false,
    });
  });

  it('reads the state before a write while replay is paused, and the write with Prefer: read-your-writes', async () => {
    const created = await rest('/probe', { method: 'POST', body: JSON.stringify({ id: 1, value: 'old' }) });
    expect(created.status).toBe(201);
    await replicasCaughtUp();
    await onReplicas((sql) => sql`select pg_wal_replay_pause()`);
    await until('replay to pause', async () => {
      const states = await onReplicas(
        async (sql) => (await sql<{ s: string }[]>`select pg_get_wal_replay_pause_state() as s`)[0].s,
      );
      return states.every((s) => s === 'paused') ? true : undefined;
    });
    try {
      // Writes succeed while the replicas cannot apply anything: they ran on the primary (a replica refuses them).
      const patched = await rest('/probe?id=eq.1', { method: 'PATCH', body: JSON.stringify({ value: 'new' }) });
      expect(patched.status).toBe(204);
      const inserted = await rest('/probe', { method: 'POST', body: JSON.stringify({ id: 2, value: 'second' }) });
      expect(inserted.status).toBe(201);

      for (let i = 0; i < 2; i++) {
        const stale = await rest('/probe?select=value&id=eq.1');
        expect(await stale.json()).toEqual([{ value: 'old' }]);
      }
      const staleCount = await rest('/probe', { method: 'HEAD', headers: { prefer: 'count=exact' } });
      expect(staleCount.headers.get('content-range')).toBe('0-0/1');

      const fresh = await rest('/probe?select=value&id=eq.1', { headers: { prefer: 'read-your-writes' } });
      expect(fresh.headers.get('preference-applied')).toBe('read-your-writes');
      expect(await fresh.json()).toEqual([{ value: 'new' }]);
      const freshCount = await rest('/probe', {
        method: 'HEAD',
        headers: { prefer: 'count=exact, read-your-writes' },
      });
      expect(freshCount.headers.get('content-range')).toBe('0-1/2');
      expect(freshCount.headers.get('preference-applied')).toBe('count=exact, read-your-writes');
      // The preference is taken off before the engine: strict handling does not refuse it.
      const strict = await rest('/probe?select=value&id=eq.2', {
        headers: { prefer: 'handling=strict, read-your-writes' },
      });
      expect(strict.status).toBe(200);
      expect(await strict.json()).toEqual([{ value: 'second' }]);

      // supabase-js: the preference as a header of one query.
      const client = createClient(server.url, server.ctx.serviceRoleKey, TEST_CLIENT_OPTIONS);
      const a = await client.from('probe').select('value').eq('id', 1).single();
      expect(a.data).toEqual({ value: 'old' });
      const b = await client.from('probe').select('value').eq('id', 1).setHeader('Prefer', 'read-your-writes').single();
      expect(b.data).toEqual({ value: 'new' });
    } finally {
      await onReplicas((sql) => sql`select pg_wal_replay_resume()`);
    }
    await replicasCaughtUp();
    const caughtUp = await rest('/probe?select=value&id=eq.1');
    expect(await caughtUp.json()).toEqual([{ value: 'new' }]);
  });

  it('takes a replica whose replay lags past DB_READ_MAX_LAG_MS out of rotation until it catches up', async () => {
    const [r0, r1] = cluster.replicas;
    const lagging = postgres(r0.url, { max: 1, onnotice: () => {} });
    try {
      await lagging`select pg_wal_replay_pause()`;
      const written = await rest('/probe', { method: 'POST', body: JSON.stringify({ id: 10, value: 'lagged' }) });
      expect(written.status).toBe(201);
      await until('r0 to lag past the bound', async () => {
        await server.ctx.replicas.check();
        return server.ctx.replicas.status()[0].healthy ? undefined : true;
      });
      const [lagged, current] = server.ctx.replicas.status();
      expect(lagged.lagMs).toBeGreaterThan(MAX_LAG_MS);
      expect(current.healthy).toBe(true);
      expect(current.lagMs).toBeLessThan(MAX_LAG_MS);
      const reads = [await whereRead(), await whereRead(), await whereRead()];
      expect(reads).toEqual(Array(3).fill({ port: r1.port, recovery: true }));
      const health = (await (await fetch(`${server.url}/health`)).json()) as { read_replicas: unknown };
      expect(health.read_replicas).toMatchObject({ total: 2, healthy: 1, lag_ms: [lagged.lagMs, 0] });
    } finally {
      await lagging`select pg_wal_replay_resume()`;
      await lagging.end();
    }
    // The row counts of the next test are the earlier tests' rows.
    expect((await rest('/probe?id=eq.10', { method: 'DELETE' })).status).toBe(204);
    await replicasCaughtUp();
    await inRotation();
    expect(server.ctx.replicas.status().map((s) => s.lagMs)).toEqual([0, 0]);
  });

  it('takes a stopped replica out of rotation, falls back to the primary, and returns to the replicas', async () => {
    const [r0, r1] = cluster.replicas;
    await r0.stop();
    // At most one read meets the stopped replica: it is answered from the primary, and the replica leaves rotation.
    const afterOne = [];
    for (let i = 0; i < 6; i++) afterOne.push(await whereRead());
    expect(afterOne.filter((r) => r.port === r0.port)).toEqual([]);
    expect(afterOne.filter((r) => r.port === cluster.primary.port).length).toBeLessThanOrEqual(1);
    expect(afterOne.slice(2)).toEqual(Array(4).fill({ port: r1.port, recovery: true }));

    await r1.stop();
    // The first read meets the stopped replica; a HEAD answer has no body, and is still answered from the primary.
    const head = await rest('/probe', { method: 'HEAD', headers: { prefer: 'count=exact' } });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-range')).toBe('0-1/2');
    const none = [];
    for (let i = 0; i < 3; i++) none.push(await whereRead());
    expect(none).toEqual(Array(3).fill({ port: cluster.primary.port, recovery: false }));
    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({
      status: 'ok',
      database: 'up',
      read_replicas: { total: 2, healthy: 0, lag_ms: [0, 0] },
    });

    await r0.start();
    await r1.start();
    await inRotation();
    expect(await (await fetch(`${server.url}/health`)).json()).toMatchObject({
      read_replicas: { total: 2, healthy: 2 },
    });
    const back = new Set<number>();
    for (let i = 0; i < 4; i++) back.add((await whereRead()).port);
    expect([...back].sort()).toEqual([r0.port, r1.port].sort());
  });
});
