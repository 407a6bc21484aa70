// `Prefer: read-your-writes` on a server without read replicas: every read is on the primary already, so the
// preference is honoured as it is, acknowledged, and never refused (docs/scaling.md, "Read replicas").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/test-server.js';

let t: TestServer;
let headers: Record<string, string>;

beforeAll(async () => {
  t = await startTestServer({ WORKERS_ENABLED: 'false' });
  headers = { apikey: t.serviceRoleKey, authorization: `Bearer ${t.serviceRoleKey}` };
  await t.db.sql.unsafe(`
    create table public.ryw_probe (id int primary key);
    insert into public.ryw_probe values (1), (2);
    grant select on public.ryw_probe to service_role;
    notify pgrst, 'reload schema';`);
});

afterAll(async () => {
  await t?.stop();
});

async function get(prefer: string): Promise<Response> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const res = await fetch(`${t.url}/rest/v1/ryw_probe?select=id&order=id`, { headers: { ...headers, prefer } });
    // The table appears once the schema reload has run.
    if (res.status !== 404 || Date.now() > deadline) return res;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('Prefer: read-your-writes without replicas', () => {
  it('reads and acknowledges it, also with strict handling of preferences', async () => {
    const plain = await get('read-your-writes');
    expect(plain.status).toBe(200);
    expect(plain.headers.get('preference-applied')).toBe('read-your-writes');
    expect(await plain.json()).toEqual([{ id: 1 }, { id: 2 }]);
    const strict = await get('handling=strict, count=exact, read-your-writes');
    expect(strict.status).toBe(200);
    expect(strict.headers.get('content-range')).toBe('0-1/2');
    expect(strict.headers.get('preference-applied')).toBe('count=exact, handling=strict, read-your-writes');
  });

  it('still refuses an unknown preference under strict handling', async () => {
    const res = await get('handling=strict, read-your-writes=yes');
    expect(res.status).toBe(400);
    expect(((await res.json()) as { code: string }).code).toBe('PGRST122');
  });
});
