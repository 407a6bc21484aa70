// The server behind PgBouncer in transaction mode (Debian's 1.18, which keeps no prepared statements there), with
// preparing off. Run by scripts/test-pg-cluster.sh together with the REST, RPC and auth end-to-end files, whose
// servers the pooler runs' global setup sends through the same PgBouncer.
import { inject } from 'vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../test/support/test-server.js';

let t: TestServer;
let headers: Record<string, string>;

const rest = (path: string, init: RequestInit = {}) =>
  fetch(`${t.url}/rest/v1${path}`, { ...init, headers: { ...headers, ...(init.headers ?? {}) } });

beforeAll(async () => {
  expect(inject('pgPoolerUrl')).toMatch(/^postgres:\/\/127\.0\.0\.1:\d+\/$/);
  t = await startTestServer({ WORKERS_ENABLED: 'false', DB_POOL_SIZE: '20' });
  headers = {
    apikey: t.serviceRoleKey,
    authorization: `Bearer ${t.serviceRoleKey}`,
    'content-type': 'application/json',
  };
  await t.db.sql.unsafe(`
    create table public.pooled (id int primary key, value text not null);
    grant select, insert, update on public.pooled to service_role;
    create function public.backend_pid() returns int language sql volatile as $$ select pg_backend_pid() $$;
    grant execute on function public.backend_pid() to service_role;
    notify pgrst, 'reload schema';`);
});

afterAll(async () => {
  await t?.stop();
});

describe('behind PgBouncer in transaction mode', () => {
  it('picks up a schema change: the reload LISTEN runs on a direct connection, not through the pooler', async () => {
    // A LISTEN through a transaction-mode pooler never hears the NOTIFY; the table then stays unknown (404).
    const deadline = Date.now() + 10_000;
    let status = 0;
    while (Date.now() < deadline && status !== 200) {
      status = (await rest('/pooled')).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 50));
    }
    expect(status).toBe(200);
  });

  it('runs many concurrent requests on the few server connections PgBouncer keeps', async () => {
    const writes = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        rest('/pooled', { method: 'POST', body: JSON.stringify({ id: i, value: `v${i}` }) }),
      ),
    );
    expect(writes.map((r) => r.status)).toEqual(Array(30).fill(201));
    const pids = await Promise.all(
      Array.from({ length: 60 }, async () => {
        const res = await rest('/rpc/backend_pid', { method: 'POST', body: '{}' });
        expect(res.status).toBe(200);
        return (await res.json()) as number;
      }),
    );
    // The server's pool holds up to 20 connections; PgBouncer's pool for this database and role holds 5.
    expect(new Set(pids).size).toBeLessThanOrEqual(5);
    const [{ n }] = await t.db.sql<{ n: number }[]>`
      select count(*)::int as n from pg_stat_activity where usename = 'authenticator' and datname = ${t.db.name}`;
    expect(n).toBeLessThanOrEqual(5);
    const read = await rest('/pooled?select=value&id=in.(3,17)&order=id');
    expect(await read.json()).toEqual([{ value: 'v3' }, { value: 'v17' }]);
  });

  it('reports a statement error and keeps serving: no failed transaction is left on a shared connection', async () => {
    const duplicate = await rest('/pooled', { method: 'POST', body: JSON.stringify({ id: 3, value: 'again' }) });
    expect(duplicate.status).toBe(409);
    expect(((await duplicate.json()) as { code: string }).code).toBe('23505');
    const after = await Promise.all(Array.from({ length: 10 }, () => rest('/pooled?select=id&id=eq.3')));
    expect(after.map((r) => r.status)).toEqual(Array(10).fill(200));
  });
});
