// Breadth through engine.handle: media types, counts, profiles, HEAD/OPTIONS, PUT, Location, limits, reload.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setup, SERVICE, USER_A, type Harness } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  // 1.5 s: a statement of this file on a loaded machine may take a few hundred ms (300 ms failed a HEAD with 500).
  h = await setup({ maxRows: 3, statementTimeoutMs: 1500, txRollbackAllowed: true });
});
afterAll(async () => {
  await h.close();
});

describe('responses', () => {
  it('names each stage in Server-Timing; a cached plan shows parse, plan and compile as 0', async () => {
    const d = '(\\d+\\.\\d\\d)';
    const stages = new RegExp(`^parse;dur=${d}, plan;dur=${d}, compile;dur=${d}, execute;dur=${d}, respond;dur=${d}$`);
    const first = await h.req('GET', '/tasks?select=id&id=eq.2');
    expect(first.headers['server-timing']).toMatch(stages);
    const again = await h.req('GET', '/tasks?select=id&id=eq.2');
    const [, parse, plan, compile] = stages.exec(again.headers['server-timing'])!;
    expect([parse, plan, compile]).toEqual(['0.00', '0.00', '0.00']);
  });
  it('caps rows at maxRows and reports planned and estimated counts', async () => {
    const r = await h.req('GET', '/tasks?select=id&order=id', { headers: { prefer: 'count=exact' } });
    expect(r).toMatchObject({ status: 206, json: [{ id: 1 }, { id: 2 }, { id: 3 }] });
    expect(r.headers['content-range']).toBe('0-2/5');
    const planned = await h.req('GET', '/tasks?select=id', { headers: { prefer: 'count=planned' } });
    expect(planned.headers['content-range']).toMatch(/^0-2\/\d+$/);
    expect(planned.headers['preference-applied']).toBe('count=planned');
    // With statistics the planner's estimate of the whole table is exact: 5 rows (the EXPLAIN top node is the scan).
    await h.db.sql`analyze tasks`;
    const plannedAll = await h.req('GET', '/tasks?select=id&order=id', { headers: { prefer: 'count=planned' } });
    expect(plannedAll).toMatchObject({ status: 206, headers: { 'content-range': '0-2/5' } });
    const past = await h.req('GET', '/tasks?offset=10', { headers: { prefer: 'count=exact' } });
    expect(past).toMatchObject({ status: 416, json: { code: 'PGRST103' } });
  });

  it('count=estimated: exact up to maxRows, above it the larger of the estimate and the counted rows', async () => {
    // Two rows are done: under the cap of 3, counted exactly whatever the planner thinks.
    const under = await h.req('GET', '/tasks?select=id&done=is.true&order=id', {
      headers: { prefer: 'count=estimated' },
    });
    expect(under).toMatchObject({
      status: 200,
      json: [{ id: 1 }, { id: 4 }],
      headers: { 'content-range': '0-1/2', 'preference-applied': 'count=estimated' },
    });
    // Five rows: over the cap, so the planner's estimate (exact after ANALYZE), never below the 4 rows counted.
    await h.db.sql`analyze tasks`;
    const over = await h.req('GET', '/tasks?select=id&order=id', { headers: { prefer: 'count=estimated' } });
    expect(over).toMatchObject({ status: 206, headers: { 'content-range': '0-2/5' } });
    // An estimate below what was counted (statistics claiming the table is empty) gives way to the count.
    await h.db.sql`update pg_class set reltuples = 0, relpages = 1 where oid = 'public.tasks'::regclass`;
    try {
      const low = await h.req('GET', '/tasks?select=id&order=id', { headers: { prefer: 'count=estimated' } });
      expect(low.headers['content-range']).toBe('0-2/4');
    } finally {
      await h.db.sql`analyze tasks`;
    }
  });

  it("renders timestamps in a Prefer timezone, an offset too, and fails with PostgreSQL's error for others", async () => {
    const q = '/users?select=created_at&id=eq.1';
    const la = await h.req('GET', q, { headers: { prefer: 'timezone=America/Los_Angeles' } });
    expect(la).toMatchObject({ status: 200, json: [{ created_at: '2023-12-31T16:00:00-08:00' }] });
    expect(la.headers['preference-applied']).toBe('timezone=America/Los_Angeles');
    // A POSIX offset, as PostgreSQL reads it (east of Greenwich is negative), and the zone's name in another case.
    const offset = await h.req('GET', q, { headers: { prefer: 'timezone=+05:30' } });
    expect(offset).toMatchObject({ status: 200, json: [{ created_at: '2023-12-31T18:30:00-05:30' }] });
    expect(offset.headers['preference-applied']).toBe('timezone=+05:30');
    const lower = await h.req('GET', q, { headers: { prefer: 'timezone=america/los_angeles' } });
    expect(lower).toMatchObject({ status: 200, json: la.json });
    // Unknown zones fail whatever the handling, as in PostgREST 13 (PostgREST 12 and the engine ignored them); the
    // value is a parameter of set_config, never SQL text.
    for (const prefer of [
      'timezone=Mars/Phobos',
      'handling=strict, timezone=Mars/Phobos',
      'handling=lenient, timezone=Mars/Phobos',
    ]) {
      const r = await h.req('GET', q, { headers: { prefer } });
      expect(r, prefer).toMatchObject({
        status: 400,
        json: {
          code: '22023',
          details: null,
          hint: null,
          message: 'invalid value for parameter "TimeZone": "Mars/Phobos"',
        },
      });
    }
    const injected = await h.req('GET', q, { headers: { prefer: "timezone=UTC'; select 1 --" } });
    expect(injected).toMatchObject({ status: 400, json: { code: '22023' } });
    const leap = await h.req('GET', q, { headers: { prefer: 'timezone=05:30:15' } });
    expect(leap).toMatchObject({
      status: 400,
      json: {
        code: '22023',
        details: 'PostgreSQL does not support leap seconds.',
        message: 'time zone "05:30:15" appears to use leap seconds',
      },
    });
    const strictKnown = await h.req('GET', q, { headers: { prefer: 'handling=strict, timezone=Asia/Tokyo' } });
    expect(strictKnown).toMatchObject({ status: 200, json: [{ created_at: '2024-01-01T09:00:00+09:00' }] });
  });

  it('renders CSV and single objects, and refuses unknown media types', async () => {
    const csv = await h.req('GET', '/users?select=id,name&order=id&limit=2', { headers: { accept: 'text/csv' } });
    expect(csv.text).toBe('id,name\n1,Ada\n2,Bob');
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    const one = await h.req('GET', '/users?select=email&id=eq.1', {
      headers: { accept: 'application/vnd.pgrst.object+json' },
    });
    expect(one.json).toEqual({ email: 'ada@example.com' });
    const bad = await h.req('GET', '/users', { headers: { accept: 'image/png' } });
    expect(bad).toMatchObject({ status: 406, json: { code: 'PGRST107' } });
  });

  it('serves OpenAPI at the root, HEAD without a body and OPTIONS with Allow', async () => {
    const doc = await h.req('GET', '/');
    expect(doc.json.openapi).toBe('3.1.0');
    expect(doc.json.paths['/projects'].get).toBeDefined();
    expect(doc.json.paths['/project_summary'].post).toBeUndefined();
    const head = await h.req('HEAD', '/users');
    expect(head).toMatchObject({ status: 200, text: null });
    const opts = await h.req('OPTIONS', '/project_summary');
    expect(opts.headers.allow).toBe('OPTIONS,GET,HEAD');
  });

  it('refuses unexposed schemas and bad paths', async () => {
    expect(await h.req('GET', '/users', { headers: { 'accept-profile': 'private' } })).toMatchObject({
      status: 406,
      json: { code: 'PGRST106' },
    });
    expect(await h.req('GET', '/a/b')).toMatchObject({ status: 404, json: { code: 'PGRST125' } });
    expect(await h.req('GET', '/projects?select=id&tasks.id=eq.1')).toMatchObject({
      status: 400,
      json: { code: 'PGRST108' },
    });
    expect(await h.req('GET', '/tasks?order=tasks(id)')).toMatchObject({ status: 400 });
    // A related order is on an embedded resource (PGRST108 otherwise, as PostgREST), and a to-one one.
    expect(await h.req('GET', '/projects?order=tasks(id)')).toMatchObject({ status: 400, json: { code: 'PGRST108' } });
    expect(await h.req('GET', '/projects?select=id,tasks(id)&order=tasks(id)')).toMatchObject({
      status: 400,
      json: { code: 'PGRST118' },
    });
    expect(await h.req('GET', '/tasks?select=count()')).toMatchObject({ status: 400, json: { code: 'PGRST123' } });
  });

  it('writes through an updatable view and refuses a non-updatable one', async () => {
    const up = await h.req('PATCH', '/active_projects?id=eq.1', {
      body: { budget: 5 },
      claims: USER_A,
      headers: { prefer: 'return=representation,tx=rollback' },
    });
    expect(up).toMatchObject({ status: 200, json: [{ id: 1, budget: 5 }] });
    const no = await h.req('POST', '/project_summary', { body: { name: 'x' }, claims: USER_A });
    expect(no.status).toBe(405);
  });

  it('PUT upserts one row by primary key; headers-only gives Location; PGRST102 on mismatched keys', async () => {
    const put = await h.req('PUT', '/tags?id=eq.50', {
      body: { id: 50, name: 'put' },
      claims: USER_A,
      headers: { prefer: 'return=representation' },
    });
    // 201: the row was inserted (a PUT that replaces a row answers 200, test/postgrest-suite-shapes.test.ts).
    expect(put).toMatchObject({ status: 201, json: [{ id: 50, name: 'put' }] });
    expect((await h.req('PUT', '/tags?name=eq.x', { body: { id: 1, name: 'x' }, claims: USER_A })).json.code).toBe(
      'PGRST105',
    );
    const loc = await h.req('POST', '/tags', {
      body: { name: 'located' },
      claims: USER_A,
      headers: { prefer: 'return=headers-only' },
    });
    expect(loc.headers.location).toMatch(/^\/tags\?id=eq\.\d+$/);
    const keys = await h.req('POST', '/tags', { body: [{ name: 'a1' }, { id: 3 }], claims: USER_A });
    expect(keys).toMatchObject({ status: 400, json: { code: 'PGRST102', message: 'All object keys must match' } });
  });

  it('applies missing=default, max-affected and tx=rollback', async () => {
    const r = await h.req('POST', '/tasks?columns=project_id,title,done', {
      body: [{ project_id: 1, title: 'd1' }],
      claims: SERVICE,
      headers: { prefer: 'missing=default,return=representation,tx=rollback' },
    });
    expect(r).toMatchObject({ status: 201, json: [{ title: 'd1', done: false }] });
    const many = await h.req('PATCH', '/tasks?project_id=eq.1', {
      body: { priority: 9 },
      claims: SERVICE,
      headers: { prefer: 'handling=strict,max-affected=1' },
    });
    expect(many).toMatchObject({ status: 400, json: { code: 'PGRST124' } });
    const [{ n }] = await h.db.sql`select count(*)::int as n from tasks where priority = 9`;
    expect(n).toBe(0);
  });

  it('times out long statements and sets the role and claims per request', async () => {
    const slow = await h.req('GET', '/rpc/sleep_ms?ms=5000');
    expect(slow.json.code).toBe('57014');
    expect((await h.req('POST', '/rpc/current_role_name', { claims: SERVICE })).json).toBe('service_role');
    expect((await h.req('POST', '/rpc/current_role_name')).json).toBe('anon');
    // Without an allow-list the database decides: the authenticator may not switch to postgres.
    expect((await h.req('POST', '/rpc/current_role_name', { claims: { role: 'postgres' } })).json.code).toBe('42501');
  });

  it('reloads the schema cache on NOTIFY pgrst', async () => {
    await h.db.sql`create table late_table (id int primary key)`;
    await h.db.sql`grant select on late_table to anon`;
    expect((await h.req('GET', '/late_table')).status).toBe(404);
    await h.db.sql`notify pgrst, 'reload schema'`;
    // The reload runs when the notification arrives: waited for, with a deadline a loaded machine meets.
    await expect.poll(async () => (await h.req('GET', '/late_table')).status, { timeout: 15_000 }).toBe(200);
    expect(await h.req('GET', '/late_table')).toMatchObject({ status: 200, json: [] });
  });
});

// PostgREST's db-tx-end: how every request's transaction ends, and whether `Prefer: tx` may change it.
describe('txEnd', () => {
  const insert = (engine: Harness, prefer: string) =>
    engine.req('POST', '/tags', { body: { name: `tx-${prefer}` }, claims: SERVICE, headers: { prefer } });
  const kept = async (engine: Harness, prefer: string) =>
    (await engine.db.sql`select 1 from tags where name = ${`tx-${prefer}`}`).length === 1;

  it("'rollback' keeps nothing a request writes, whatever it prefers", async () => {
    const r = await setup({ txEnd: 'rollback' }, 1);
    try {
      const answer = await insert(r, 'return=representation,tx=commit');
      expect(answer).toMatchObject({ status: 201, json: [{ name: 'tx-return=representation,tx=commit' }] });
      expect(answer.headers['preference-applied']).not.toContain('tx=');
      expect(await kept(r, 'return=representation,tx=commit')).toBe(false);
    } finally {
      await r.close();
    }
  });

  it("'rollback-allow-override' rolls back unless the request prefers tx=commit", async () => {
    const r = await setup({ txEnd: 'rollback-allow-override' }, 1);
    try {
      await insert(r, 'return=minimal');
      expect(await kept(r, 'return=minimal')).toBe(false);
      const answer = await insert(r, 'tx=commit');
      expect(answer.headers['preference-applied']).toContain('tx=commit');
      expect(await kept(r, 'tx=commit')).toBe(true);
    } finally {
      await r.close();
    }
  });

  it("'commit' (the default) ignores tx=rollback", async () => {
    const r = await setup({}, 1);
    try {
      await insert(r, 'tx=rollback');
      expect(await kept(r, 'tx=rollback')).toBe(true);
    } finally {
      await r.close();
    }
  });
});
