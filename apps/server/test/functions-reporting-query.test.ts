// execute-query end to end: results in JSON and CSV, the cache, public saved reports, the validator's refusals as
// a table of cases, who may query. generate-sql (the language model's side) is in functions-reporting-generate.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callFunction, type NotifyHarness, type TestUser } from './functions-notify.fixture.js';
import { importCsvText, queryAs, startQueryWorld, type QueryWorld } from './functions-reporting-query.fixture.js';
import { startTestServer } from './support/test-server.js';

let world: QueryWorld;
let h: NotifyHarness;
let owner: TestUser;
let member: TestUser;
let outsider: TestUser;
let auctionId: string;
let datasetId: string;
let otherDatasetId: string;
beforeAll(async () => {
  world = await startQueryWorld();
  ({ h, owner, member, outsider, auctionId, datasetId, otherDatasetId } = world);
});
afterAll(() => world?.close());

const importText = (
  user: TestUser,
  auction: string,
  name: string | null,
  csv: string,
  into?: { dataset_id: string; mode: 'append' | 'replace' },
) => importCsvText(h, user, auction, name, csv, into);

const query = (user: TestUser | undefined, body: unknown) => queryAs(world, user, body);

describe('execute-query', () => {
  it('answers JSON with typed columns, then the same from the cache', async () => {
    const sql = 'select make, sum(price) as total from dataset group by make order by make';
    const first = await query(member, { dataset_id: datasetId, sql });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-cache')).toBe('MISS');
    expect(first.body).toMatchObject({
      cached: false,
      columns: [
        { name: 'make', type: 'text' },
        { name: 'total', type: 'numeric' },
      ],
      rows: [
        { make: 'Ford', total: 150 },
        { make: 'Kia', total: 250 },
      ],
      row_count: 2,
      truncated: false,
    });
    // The same statement written differently is the same cache entry.
    const second = await query(member, {
      dataset_id: datasetId,
      sql: `SELECT make, SUM(price) AS total  -- again\nFROM dataset GROUP BY make ORDER BY make;`,
    });
    expect(second.headers.get('x-cache')).toBe('HIT');
    expect(second.body.cached).toBe(true);
    expect(second.body.rows).toEqual(first.body.rows);
  });

  it('shares results between server processes through PostgreSQL, until an import or the five minutes end', async () => {
    // A second server on the same database, as another process or instance behind the load balancer is.
    const env = { JWT_SECRET: 'n'.repeat(40), FUNCTION_RATE_LIMITS: 'execute-query=1000/minute' };
    const other = await startTestServer(env, { db: h.db });
    const unshared = await startTestServer({ ...env, QUERY_CACHE_SHARED: 'false' }, { db: h.db });
    try {
      const dataset = await importText(owner, auctionId, 'Shared', 'make,price\nFord,1\nKia,2\n');
      const sql = 'select count(*) as n, sum(price) as total from dataset';
      const on = (url: string) =>
        callFunction(url, h.server.ctx.anonKey, 'execute-query', {
          bearer: member.token,
          body: { dataset_id: dataset, sql },
        });
      const first = await on(h.url);
      expect([first.headers.get('x-cache'), first.body.rows]).toEqual(['MISS', [{ n: 2, total: 3 }]]);
      const there = await on(other.url);
      expect([there.headers.get('x-cache'), there.body.cached, there.body.rows]).toEqual([
        'HIT',
        true,
        first.body.rows,
      ]);
      // Per process when the operator turns sharing off.
      expect((await on(unshared.url)).headers.get('x-cache')).toBe('MISS');

      // An import on one server: every server computes the new result.
      await importText(owner, auctionId, null, 'make,price\nSaab,4\n', { dataset_id: dataset, mode: 'append' });
      const afterImport = await on(other.url);
      expect([afterImport.headers.get('x-cache'), afterImport.body.rows]).toEqual(['MISS', [{ n: 3, total: 7 }]]);
      const [{ entries }] = await h.db.sql<{ entries: number }[]>`
        select count(*)::int as entries from reporting_data.report_cache where dataset_id = ${dataset}`;
      expect(entries).toBe(1);

      // An entry past its five minutes is not served by a process that has not seen it.
      await h.db.sql`update reporting_data.report_cache set expires_at = now() - interval '1 second'
                      where dataset_id = ${dataset}`;
      const third = await startTestServer(env, { db: h.db });
      try {
        expect((await on(third.url)).headers.get('x-cache')).toBe('MISS');
      } finally {
        await third.stop();
      }
    } finally {
      await other.stop();
      await unshared.stop();
    }
  });

  it("never serves a cached result to another tenant, nor a public report's result to a member's own SQL", async () => {
    const env = { JWT_SECRET: 'n'.repeat(40), FUNCTION_RATE_LIMITS: 'execute-query=1000/minute' };
    const other = await startTestServer(env, { db: h.db });
    try {
      const dataset = await importText(owner, auctionId, 'Tenant', 'make,price\nFord,10\nKia,20\n');
      const sql = 'select sum(price) as total from dataset';
      const first = await query(member, { dataset_id: dataset, sql });
      expect([first.headers.get('x-cache'), first.body.rows]).toEqual(['MISS', [{ total: 30 }]]);
      // Another auction's member asks the same of either server: the dataset is not theirs, whatever is cached.
      for (const url of [h.url, other.url]) {
        const stranger = await callFunction(url, h.server.ctx.anonKey, 'execute-query', {
          bearer: outsider.token,
          body: { dataset_id: dataset, sql },
        });
        expect([stranger.status, stranger.body.code, stranger.headers.get('x-cache')]).toEqual([
          404,
          'NOT_FOUND',
          null,
        ]);
      }
      // The same statement on their own dataset is their own result.
      const own = await query(outsider, { dataset_id: otherDatasetId, sql: 'select count(*) as n from dataset' });
      expect([own.headers.get('x-cache'), own.body.rows]).toEqual(['MISS', [{ n: 1 }]]);

      // A public report runs as the service role: its entry is not the member's, though the statement is the same.
      const [report] = await h.db.sql`insert into public.saved_reports (auction_id, dataset_id, name, sql, is_public)
        values (${auctionId}, ${dataset}, 'public total', 'select count(*) as n from dataset', true) returning id`;
      const pub = await callFunction(other.url, h.server.ctx.anonKey, 'execute-query', {
        body: { report_id: report.id },
      });
      expect([pub.status, pub.headers.get('x-cache')]).toEqual([200, 'MISS']);
      const mine = await query(member, { dataset_id: dataset, sql: 'select count(*) as n from dataset' });
      expect([mine.headers.get('x-cache'), mine.body.rows]).toEqual(['MISS', [{ n: 2 }]]);
      const [{ scopes }] = await h.db.sql<{ scopes: string[] }[]>`
        select array_agg(split_part(key, '|', 3) order by split_part(key, '|', 3)) as scopes
          from reporting_data.report_cache where dataset_id = ${dataset}`;
      expect(scopes).toEqual(['authenticated', 'authenticated', 'service_role']);
    } finally {
      await other.stop();
    }
  });

  it('keeps the shared tier closed to every request role', async () => {
    for (const role of ['anon', 'authenticated', 'service_role']) {
      const read = h.db.sql.begin(async (tx) => {
        await tx.unsafe(`set local role ${role}`);
        return tx`select body from reporting_data.report_cache limit 1`;
      });
      await expect(read, role).rejects.toMatchObject({ code: '42501' });
    }
  });

  it('evicts the oldest shared entries past QUERY_CACHE_SHARED_MAX_BYTES', async () => {
    const maxBytes = 2000;
    const env = {
      JWT_SECRET: 'n'.repeat(40),
      FUNCTION_RATE_LIMITS: 'execute-query=1000/minute',
      QUERY_CACHE_SHARED_MAX_BYTES: String(maxBytes),
    };
    const bounded = await startTestServer(env, { db: h.db });
    try {
      const dataset = await importText(owner, auctionId, 'Bounded', 'make,price\nFord,10\nKia,20\n');
      const keys: string[] = [];
      for (let i = 0; i < 12; i++) {
        const r = await callFunction(bounded.url, h.server.ctx.anonKey, 'execute-query', {
          bearer: member.token,
          body: { dataset_id: dataset, sql: `select make, price + ${i} as p from dataset order by make` },
        });
        expect(r.headers.get('x-cache')).toBe('MISS');
        const [row] = await h.db.sql<{ key: string; total: number }[]>`
          select key, (select sum(bytes)::int from reporting_data.report_cache) as total
            from reporting_data.report_cache where dataset_id = ${dataset}
           order by expires_at desc limit 1`;
        expect(row.total).toBeLessThanOrEqual(maxBytes);
        keys.push(row.key);
      }
      const kept = await h.db.sql<{ key: string }[]>`
        select key from reporting_data.report_cache where dataset_id = ${dataset} order by expires_at`;
      // The newest entries stay, in order, and the first ones are gone.
      expect(kept.length).toBeGreaterThan(1);
      expect(kept.length).toBeLessThan(keys.length);
      expect(kept.map((k) => k.key)).toEqual(keys.slice(keys.length - kept.length));
    } finally {
      await bounded.stop();
    }
  });

  it('caps rows at the limit and says so', async () => {
    const r = await query(owner, { dataset_id: datasetId, sql: 'select * from dataset order by price', limit: 2 });
    expect([r.body.row_count, r.body.truncated]).toEqual([2, true]);
  });

  it('answers CSV as an attachment, formula cells quoted', async () => {
    const { data, error, response } = await member.client.functions.invoke('execute-query', {
      body: { dataset_id: datasetId, sql: 'select make, price, note from dataset order by price', format: 'csv' },
    });
    expect(error).toBeNull();
    expect(response?.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response?.headers.get('content-disposition')).toBe('attachment; filename="report.csv"');
    expect(data).toBe('make,price,note\r\nFord,50,\r\nFord,100,"\'=HYPERLINK(""x"")"\r\nKia,250,"a, b"\r\n');
  });

  it('runs a public saved report for the bare API key, and a private one only for members', async () => {
    const [pub] = await h.db.sql`insert into public.saved_reports (auction_id, dataset_id, name, sql, is_public)
      values (${auctionId}, ${datasetId}, 'public', 'select count(*) as n from dataset', true) returning id`;
    const [priv] = await h.db.sql`insert into public.saved_reports (auction_id, dataset_id, name, sql, is_public)
      values (${auctionId}, ${datasetId}, 'private', 'select count(*) as n from dataset', false) returning id`;
    const anon = await query(undefined, { report_id: pub.id });
    expect([anon.status, anon.body.rows]).toEqual([200, [{ n: 3 }]]);
    const anonPrivate = await query(undefined, { report_id: priv.id });
    expect([anonPrivate.status, anonPrivate.body.code]).toEqual([401, 'UNAUTHORIZED']);
    const stranger = await query(outsider, { report_id: priv.id });
    expect([stranger.status, stranger.body.code]).toEqual([404, 'NOT_FOUND']);
    expect((await query(member, { report_id: priv.id })).body.rows).toEqual([{ n: 3 }]);
  });

  it('hides another auction dataset (404) and refuses the anon key for ad-hoc SQL (401)', async () => {
    const r = await query(member, { dataset_id: otherDatasetId, sql: 'select * from dataset' });
    expect([r.status, r.body.code]).toEqual([404, 'NOT_FOUND']);
    const anon = await query(undefined, { dataset_id: datasetId, sql: 'select * from dataset' });
    expect([anon.status, anon.body.code]).toEqual([401, 'UNAUTHORIZED']);
  });

  it('refuses a dataset whose import has not completed (400), for the SQL and for generate-sql', async () => {
    const [d] = await h.db
      .sql`insert into public.datasets (auction_id, name, status) values (${auctionId}, 'half', 'failed')
      returning id`;
    const r = await query(owner, { dataset_id: d.id, sql: 'select * from dataset' });
    expect([r.status, r.body.code, r.body.details]).toEqual([400, 'VALIDATION_ERROR', 'dataset_id']);
    const g = await callFunction(h.url, h.server.ctx.anonKey, 'generate-sql', {
      bearer: owner.token,
      body: { dataset_id: d.id, natural_language_query: 'count' },
    });
    expect([g.status, g.body.code]).toEqual([400, 'VALIDATION_ERROR']);
  });

  it('reports a failing statement and a timeout as EXECUTION_ERROR', async () => {
    const bad = await query(owner, { dataset_id: datasetId, sql: 'select price / 0 from dataset' });
    expect([bad.status, bad.body.code, bad.body.details]).toEqual([400, 'EXECUTION_ERROR', '22012']);
    const missing = await query(owner, { dataset_id: datasetId, sql: 'select no_such_column from dataset' });
    expect([missing.status, missing.body.code, missing.body.details]).toEqual([400, 'EXECUTION_ERROR', '42703']);
  });

  it.each([
    ['missing dataset_id', { sql: 'select 1' }, 'INVALID_REQUEST', 'dataset_id'],
    ['missing sql', { dataset_id: '00000000-0000-4000-8000-000000000000' }, 'INVALID_REQUEST', 'sql'],
    [
      'limit too high',
      { dataset_id: '00000000-0000-4000-8000-000000000000', sql: 'select 1', limit: 10001 },
      'VALIDATION_ERROR',
      'limit',
    ],
    [
      'unknown format',
      { dataset_id: '00000000-0000-4000-8000-000000000000', sql: 'select 1', format: 'xml' },
      'VALIDATION_ERROR',
      'format',
    ],
  ])('refuses a body with %s', async (_what, body, code, details) => {
    const r = await query(owner, body);
    expect([r.status, r.body.code, r.body.details]).toEqual([400, code, details]);
  });
});

/** Statements the validator must refuse, and the reason it gives (a fragment). */
const REFUSED: Array<[string, string]> = [
  ['insert into dataset (make) values (1)', 'only SELECT'],
  ["update dataset set make = 'x'", 'only SELECT'],
  ['delete from dataset', 'only SELECT'],
  ['drop table dataset', 'only SELECT'],
  ['alter table dataset add column x int', 'only SELECT'],
  ['create table x as select * from dataset', 'only SELECT'],
  ["copy dataset to '/tmp/x'", 'only SELECT'],
  ['select 1; delete from dataset', 'exactly one statement'],
  ['with gone as (delete from dataset returning *) select * from gone', 'a WITH clause may only hold SELECT'],
  ['select * into copied from dataset', 'INTO is not allowed'],
  ['select * from dataset for update', 'LOCKING CLAUSE'],
  ['select * from pg_catalog.pg_authid', 'schema-qualified'],
  ['select * from pg_class', 'only the table "dataset"'],
  ['select * from information_schema.tables', 'schema-qualified'],
  ['select * from public.auctions', 'schema-qualified'],
  ['select * from auctions', 'only the table "dataset"'],
  ["select set_config('role', 'service_role', false)", 'set_config is not allowed'],
  ["select pg_read_file('/etc/passwd')", 'pg_read_file is not allowed'],
  ['select pg_sleep(10)', 'pg_sleep is not allowed'],
  ["select * from dblink('host=x', 'select 1') as t(a int)", 'dblink is not allowed'],
  ["select lo_import('/etc/passwd')", 'lo_import is not allowed'],
  ["select current_setting('request.jwt.claims')", 'current_setting is not allowed'],
  ['select 1 /* ; delete from dataset */ ; delete from dataset', 'exactly one statement'],
  ['select $$ $$; delete from dataset', 'exactly one statement'],
  ['select * from U&"pg_\\0063lass"', 'only the table "dataset"'],
  ["select 'pg_class'::regclass", 'casts to regclass'],
  ['select current_user', 'session information'],
];

describe('the SQL validator, through execute-query', () => {
  it.each(REFUSED)('refuses %s', async (sql, reason) => {
    const r = await query(owner, { dataset_id: datasetId, sql });
    expect([r.status, r.body.code, r.body.error]).toEqual([400, 'VALIDATION_ERROR', 'the SQL statement was rejected']);
    expect(r.body.details).toContain(reason);
  });
});
