// The softDeletes option on a generic schema (test/soft-delete-fixture): a DELETE on documents archives them
// through archive_document, answering as a delete does; refusals are the function's errors; rows the caller cannot
// read, and rows the function skips (NULL), are not in the answer. Golden statements pin the single statement.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile } from '../src/compile/statement-compiler.js';
import { createRestEngine } from '../src/index.js';
import { parse } from '../src/parse/request-parser.js';
import { plan } from '../src/plan/planner.js';
import { GOLDEN_OPTIONS, type Harness, SERVICE, setup, USER_A, USER_B } from './helpers.js';

const FIXTURE = [
  { name: 'rest-engine-soft-deletes', dir: join(dirname(fileURLToPath(import.meta.url)), 'soft-delete-fixture') },
];
const SOFT = { 'public.documents': 'public.archive_document', 'public.revisions': 'public.archive_revision' };
const REPRESENT = { prefer: 'return=representation,count=exact' };

let h: Harness;
beforeAll(async () => {
  h = await setup({ softDeletes: SOFT }, 4, FIXTURE);
});
afterAll(async () => {
  await h?.close();
});

const archived = async (id: number) =>
  (await h.db.sql`select archived_at is not null as a from documents where id = ${id}`)[0]!.a as boolean;

function compiled(pathQuery: string) {
  const [path, search = ''] = pathQuery.split(/\?(.*)/s);
  const opts = { ...GOLDEN_OPTIONS, softDeletes: new Map(Object.entries(SOFT)) };
  return compile(plan(parse({ method: 'DELETE', path, search, headers: {} }), h.engine.schemaCache, opts), null).main;
}

describe('golden statements', () => {
  it('one statement: the filtered rows the caller can read, each passed by key to the function', () => {
    expect(compiled('/documents?id=eq.1&title=like.p*')).toMatchInlineSnapshot(`
      {
        "params": [
          "1",
          "p%",
        ],
        "sql": "WITH pgrst_source AS (SELECT pgrst_d.* FROM "public"."documents" AS pgrst_t CROSS JOIN LATERAL "public"."archive_document"(pgrst_t."id") AS pgrst_d WHERE pgrst_t."id" = $1 AND pgrst_t."title" LIKE $2 AND pgrst_d."id" IS NOT NULL) SELECT NULL::bigint AS total, pg_catalog.count(_t) AS page_total, '' AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status FROM (SELECT 1 FROM pgrst_source) _t",
      }
    `);
  });
  it('a two-column key passes both columns in key order', () => {
    expect(compiled('/revisions?document_id=eq.1').sql).toContain(
      '"public"."archive_revision"(pgrst_t."document_id", pgrst_t."n") AS pgrst_d',
    );
  });
});

describe('DELETE on a soft-delete table', () => {
  it('a reader who may not archive gets the function refusal: 403 42501, nothing archived', async () => {
    const res = await h.req('DELETE', '/documents?id=eq.1', { headers: REPRESENT, claims: USER_B });
    expect(res.status).toBe(403);
    expect(res.json).toEqual({
      code: '42501',
      details: null,
      hint: null,
      message: 'only the owner may archive a document',
    });
    expect(await archived(1)).toBe(false);
  });

  it('a caller who cannot read the row gets what no matching rows give', async () => {
    const res = await h.req('DELETE', '/documents?id=eq.2', { headers: REPRESENT, claims: USER_B });
    expect([res.status, res.headers['content-range'], res.json]).toEqual([200, '*/0', []]);
    expect((await h.req('DELETE', '/documents?id=eq.2', { claims: USER_B })).status).toBe(204);
    expect(await archived(2)).toBe(false);
  });

  it('the owner gets the archived row, counted, as a delete answers with the deleted one', async () => {
    const res = await h.req('DELETE', '/documents?id=eq.1&select=id,title,archived_at', {
      headers: REPRESENT,
      claims: USER_A,
    });
    expect(res.status).toBe(200);
    expect(res.headers['content-range']).toBe('*/1');
    expect(res.json).toEqual([{ id: 1, title: 'plan', archived_at: expect.any(String) }]);
    expect(await archived(1)).toBe(true);
  });

  it('without representation: 204 with the count, as for a delete', async () => {
    const res = await h.req('DELETE', '/documents?id=in.(2,3)', {
      headers: { prefer: 'count=exact' },
      claims: USER_A,
    });
    expect([res.status, res.headers['content-range'], res.text]).toEqual([204, '*/2', null]);
    expect([await archived(2), await archived(3)]).toEqual([true, true]);
  });

  it('an archived row is no longer read, so a second delete finds nothing', async () => {
    const res = await h.req('DELETE', '/documents?id=eq.1', { headers: REPRESENT, claims: USER_A });
    expect([res.status, res.json]).toEqual([200, []]);
  });

  it('a row the function answers NULL for is skipped (the service role reads archived rows)', async () => {
    const res = await h.req('DELETE', '/documents?id=in.(1,4)&select=id', { headers: REPRESENT, claims: SERVICE });
    expect([res.status, res.headers['content-range'], res.json]).toEqual([200, '*/1', [{ id: 4 }]]);
  });

  it('a two-column key', async () => {
    const res = await h.req('DELETE', '/revisions?document_id=eq.1&n=eq.2', { headers: REPRESENT, claims: USER_A });
    expect(res.json).toEqual([{ document_id: 1, n: 2, body: 'second', archived: true }]);
    expect((await h.db.sql`select count(*)::int as n from revisions`)[0]!.n).toBe(2);
  });

  it('max-affected under handling=strict rolls the marks back', async () => {
    const res = await h.req('DELETE', '/revisions?document_id=eq.1', {
      headers: { prefer: 'handling=strict,max-affected=1' },
      claims: USER_A,
    });
    expect([res.status, res.json.code]).toEqual([400, 'PGRST124']);
    expect((await h.db.sql`select archived from revisions where n = 1`)[0]!.archived).toBe(false);
  });

  it('a limit, which would page the answer only and leave selected rows unmarked, is refused', async () => {
    const res = await h.req('DELETE', '/revisions?document_id=eq.1&limit=1', { claims: USER_A });
    expect([res.status, res.json.code]).toEqual([400, 'PGRST127']);
  });
});

describe('the option at start', () => {
  const start = async (softDeletes: Record<string, string>) => {
    const sql = postgres(h.db.requestUrl, { max: 1, onnotice: () => {} });
    try {
      await createRestEngine({ sql, schemas: ['public'], anonRole: 'anon', listen: false, softDeletes });
    } finally {
      await sql.end();
    }
  };
  it('rejects a function of another shape, an unknown function and an unknown table, naming them', async () => {
    await expect(start({ 'public.documents': 'public.archive_wrongly' })).rejects.toThrow(
      'softDeletes: no function public.archive_wrongly(integer) returns public.documents in the exposed schemas',
    );
    await expect(start({ 'public.documents': 'public.nope' })).rejects.toThrow('no function public.nope(integer)');
    await expect(start({ 'public.nope': 'public.archive_document' })).rejects.toThrow(
      'softDeletes: no table public.nope in the exposed schemas',
    );
  });
});
