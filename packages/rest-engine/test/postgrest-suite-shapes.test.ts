// Behaviours PostgREST's own test suite checks (`pnpm conformance postgrest`), on shapes of its fixtures
// (test/suite-fixture): relationships through views over tables of a schema that is not exposed (also junctions
// and self-references), partitions without relationships of their own, computed fields in filters and order, JSON
// paths on arrays and composites (and the names they answer under), is.not_null, negative offsets, Proxy-Status
// on errors, and PUT's 201.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, SERVICE, SUITE_FIXTURE, setup } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await setup({}, 2, SUITE_FIXTURE);
});
afterAll(async () => {
  await h?.close();
});

const get = (path: string) => h.req('GET', path, { claims: SERVICE });

describe('relationships through views over a schema that is not exposed', () => {
  it('embeds a parent view through a renamed foreign key column', async () => {
    const r = await get('/titles?select=title,writers(name)&order=id');
    expect(r.status).toBe(200);
    expect(r.json).toEqual([
      { title: 'First', writers: { name: 'Ann' } },
      { title: 'Second', writers: { name: 'Ann' } },
      { title: 'Third', writers: { name: 'Bob' } },
    ]);
  });
  it('embeds the children views', async () => {
    const r = await get('/writers?select=name,titles(title)&id=eq.2');
    expect(r.json).toEqual([{ name: 'Bob', titles: [{ title: 'Third' }] }]);
  });
  it('gives a column shown twice a relationship under each name', async () => {
    const ambiguous = await get('/titles_twice?select=id,writers(name)');
    expect(ambiguous.status).toBe(300);
    expect(ambiguous.json.code).toBe('PGRST201');
    expect(ambiguous.json.details).toHaveLength(2);
    const r = await get('/titles_twice?select=id,writers!first_author(name)&id=eq.3');
    expect(r.status).toBe(200);
    expect(r.json).toEqual([{ id: 3, writers: { name: 'Bob' } }]);
  });
  it('embeds many-to-many through an exposed view of the junction', async () => {
    const r = await get('/titles?select=id,tag_list(name)&id=in.(1,2)&order=id');
    expect(r.status).toBe(200);
    expect(r.json).toEqual([
      { id: 1, tag_list: expect.arrayContaining([{ name: 'red' }, { name: 'blue' }]) },
      { id: 2, tag_list: [] },
    ]);
  });
  it('embeds a self-reference of a view: the FK column names the parent, the view the children', async () => {
    const r = await get('/tree?select=id,parent_id(id),children:tree!parent_id(id)&order=id');
    expect(r.status).toBe(200);
    expect(r.json).toEqual([
      { id: 1, parent_id: null, children: [{ id: 2 }] },
      { id: 2, parent_id: { id: 1 }, children: [] },
    ]);
  });
});

describe('partitions', () => {
  it('have no relationships of their own; their partitioned table has', async () => {
    expect((await get('/yearly?select=id,year_notes(note)')).json).toEqual([{ id: 1, year_notes: [{ note: 'n' }] }]);
    const r = await get('/year_notes?select=note,yearly_2020(id)');
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ code: 'PGRST200', hint: "Perhaps you meant 'yearly' instead of 'yearly_2020'." });
    // A name like none the origin embeds: no hint.
    expect((await get('/year_notes?select=note,qqqqqqqqqqqq(id)')).json).toMatchObject({
      code: 'PGRST200',
      hint: null,
    });
  });
  it('are no names of the API, as in PostgREST', async () => {
    const r = await get('/yearly_2020?select=id');
    expect(r.status).toBe(404);
    expect(r.json).toMatchObject({
      code: 'PGRST205',
      message: "Could not find the table 'public.yearly_2020' in the schema cache",
    });
  });
  it('leave a missing relationship reported before a missing column', async () => {
    const r = await get('/yearly?select=no_such_column,yearly_2020(id)');
    expect(r.status).toBe(400);
    expect(r.json.code).toBe('PGRST200');
  });
});

describe('upserts into a partitioned table', () => {
  const upsert = (body: unknown) =>
    h.req('POST', '/yearly', {
      claims: SERVICE,
      body,
      headers: { prefer: 'return=representation,resolution=merge-duplicates' },
    });
  it('POST with merge-duplicates: 201 when a row was new, 200 when every row was updated', async () => {
    const inserted = await upsert([
      { id: 1, year: 2020 },
      { id: 7, year: 2020 },
    ]);
    expect(inserted.status).toBe(201);
    expect(inserted.json).toEqual([
      { id: 1, year: 2020 },
      { id: 7, year: 2020 },
    ]);
    const updated = await upsert([{ id: 7, year: 2020 }]);
    expect(updated.status).toBe(200);
    expect(updated.json).toEqual([{ id: 7, year: 2020 }]);
  });
  it('PUT: 201 when it inserted the row, 200 when it replaced one', async () => {
    const put = () =>
      h.req('PUT', '/yearly?id=eq.8&year=eq.2020', {
        claims: SERVICE,
        body: { id: 8, year: 2020 },
        headers: { prefer: 'return=representation' },
      });
    const inserted = await put();
    expect(inserted.status).toBe(201);
    expect(inserted.json).toEqual([{ id: 8, year: 2020 }]);
    expect((await put()).status).toBe(200);
  });
  it('an empty merge-duplicates POST is 200', async () => {
    expect(await upsert([])).toMatchObject({ status: 200, json: [] });
    const gauges = await h.req('POST', '/gauges', {
      claims: SERVICE,
      body: [],
      headers: { prefer: 'return=representation,resolution=merge-duplicates' },
    });
    expect(gauges).toMatchObject({ status: 200, json: [] });
    // Also into a view without a key, where merge-duplicates makes no upsert.
    const view = await h.req('POST', '/titles', {
      claims: SERVICE,
      body: [],
      headers: { prefer: 'return=representation,resolution=merge-duplicates' },
    });
    expect(view).toMatchObject({ status: 200, json: [] });
  });
});

describe('full-text search on a tsvector domain', () => {
  it('matches the column itself, also through a domain over a domain', async () => {
    expect((await get('/phrases?select=id&plain=fts(simple).fun')).json).toEqual([{ id: 1 }]);
    expect((await get('/phrases?select=id&body=plfts(simple).rats')).json).toEqual([{ id: 2 }]);
    expect((await get('/rpc/all_phrases?select=id&body=phfts(simple).kind of')).json).toEqual([{ id: 1 }]);
  });
});

describe('computed fields', () => {
  it('filter like columns', async () => {
    expect((await get('/gauges?select=id&is_high=eq.true&order=id')).json).toEqual([{ id: 1 }, { id: 2 }]);
    expect((await get('/gauges?select=id&doubled=gt.9&order=id')).json).toEqual([{ id: 1 }, { id: 2 }]);
    expect((await get('/gauges?select=id&or=(doubled.eq.2,id.eq.2)&order=id')).json).toEqual([{ id: 2 }, { id: 3 }]);
  });
  it('order like columns', async () => {
    expect((await get('/gauges?select=id&order=doubled.desc')).json).toEqual([{ id: 2 }, { id: 1 }, { id: 3 }]);
  });
  it('filter the rows a PATCH changes', async () => {
    const r = await h.req('PATCH', '/gauges?is_high=eq.false', {
      claims: SERVICE,
      body: { level: 0 },
      headers: { prefer: 'return=representation' },
    });
    expect(r.json).toEqual([{ id: 3, level: 0 }]);
  });
});

describe('JSON paths on columns that are not json', () => {
  it('select array items and composite fields', async () => {
    const r = await get('/shelves?select=id,first:sizes->0,cell:grid->1->0,x:label->x,y:label->>y&order=id');
    expect(r.json).toEqual([
      { id: 1, first: 3, cell: 3, x: 10, y: 'ten' },
      { id: 2, first: 5, cell: 7, x: 20, y: 'twenty' },
    ]);
  });
  it('answer under the last key that is not an index, else the column', async () => {
    expect((await get('/shelves?select=sizes->0&id=eq.1')).json).toEqual([{ sizes: 3 }]);
    expect((await get('/shelves?select=label->y&id=eq.1')).json).toEqual([{ y: 'ten' }]);
  });
  it('filter and order by them', async () => {
    expect((await get('/shelves?select=id&sizes->0=eq.5')).json).toEqual([{ id: 2 }]);
    expect((await get('/shelves?select=id&label->>y=eq.ten')).json).toEqual([{ id: 1 }]);
    expect((await get('/shelves?select=id&order=label->x.desc')).json).toEqual([{ id: 2 }, { id: 1 }]);
  });
});

describe('query string and errors', () => {
  it('reads is.not_null as IS NOT NULL', async () => {
    expect((await get('/memos?select=id&body=is.not_null&id=lt.0')).status).toBe(200);
    expect((await get('/gauges?select=id&level=is.not_null&order=id&limit=1')).json).toEqual([{ id: 1 }]);
    expect((await get('/gauges?select=id&level=not.is.not_null')).json).toEqual([]);
  });
  it('takes a negative offset as none', async () => {
    expect((await get('/gauges?select=id&order=id&offset=-4&limit=1')).json).toEqual([{ id: 1 }]);
  });
  it('names the error code in Proxy-Status', async () => {
    const r = await get('/no_such_table');
    expect(r.status).toBe(404);
    expect(r.headers['proxy-status']).toBe('PostgREST; error=PGRST205');
  });
});

describe('PUT', () => {
  const put = (id: number, level: number, prefer = 'return=representation') =>
    h.req('PUT', `/gauges?id=eq.${id}`, { claims: SERVICE, body: { id, level }, headers: { prefer } });
  it('is 201 when it inserted the row, 200 when it replaced one', async () => {
    const inserted = await put(40, 1);
    expect(inserted.status).toBe(201);
    expect(inserted.json).toEqual([{ id: 40, level: 1 }]);
    const replaced = await put(40, 2);
    expect(replaced.status).toBe(200);
    expect(replaced.json).toEqual([{ id: 40, level: 2 }]);
  });
  it('of several rows puts the one its key filters name, and refuses a limit or offset', async () => {
    const several = (path: string, body: unknown) =>
      h.req('PUT', path, { claims: SERVICE, body, headers: { prefer: 'return=representation' } });
    const r = await several('/gauges?id=eq.42', [
      { id: 42, level: 7 },
      { id: 43, level: 8 },
    ]);
    expect(r).toMatchObject({ status: 201, json: [{ id: 42, level: 7 }] });
    expect((await get('/gauges?id=eq.43')).json).toEqual([]);
    const none = await several('/gauges?id=eq.44', [
      { id: 45, level: 1 },
      { id: 46, level: 1 },
    ]);
    expect(none).toMatchObject({ status: 400, json: { code: 'PGRST115' } });
    for (const page of ['limit=1', 'offset=1']) {
      const limited = await several(`/gauges?id=eq.42&${page}`, { id: 42, level: 7 });
      expect(limited).toMatchObject({
        status: 400,
        json: { code: 'PGRST114', message: 'limit/offset querystring parameters are not allowed for PUT' },
      });
    }
  });
  it('is 204 without a representation', async () => {
    expect((await put(41, 1, 'return=minimal')).status).toBe(204);
    expect((await put(41, 2, 'return=minimal')).status).toBe(204);
  });
});

describe('OPTIONS: the methods a resource takes (suite: OptionsSpec)', () => {
  it('leaves PUT out for a table without a primary key', async () => {
    expect((await h.req('OPTIONS', '/gauges', { claims: SERVICE })).headers.allow).toBe(
      'OPTIONS,GET,HEAD,POST,PUT,PATCH,DELETE',
    );
    expect((await h.req('OPTIONS', '/year_notes', { claims: SERVICE })).headers.allow).toBe(
      'OPTIONS,GET,HEAD,POST,PATCH,DELETE',
    );
  });
  it('offers only POST for a volatile function, GET and HEAD too for others, 404 for an unknown one', async () => {
    expect((await h.req('OPTIONS', '/rpc/break_deferred', { claims: SERVICE })).headers.allow).toBe('OPTIONS,POST');
    expect((await h.req('OPTIONS', '/rpc/hello_plain', { claims: SERVICE })).headers.allow).toBe(
      'OPTIONS,GET,HEAD,POST',
    );
    // The function is found as GET would find it: by the arguments in the query string.
    expect((await h.req('OPTIONS', '/rpc/add_them?a=1&b=2', { claims: SERVICE })).headers.allow).toBe(
      'OPTIONS,GET,HEAD,POST',
    );
    const unknown = await h.req('OPTIONS', '/rpc/no_such_function', { claims: SERVICE });
    expect(unknown).toMatchObject({ status: 404, json: { code: 'PGRST202' } });
  });
});

describe("views: their tables' primary keys (suite: InsertSpec's Location, OptionsSpec)", () => {
  it('give an insert into a view its Location, `is.null` for a key that came back null', async () => {
    const one = await h.req('POST', '/gauge_levels', {
      claims: SERVICE,
      headers: { prefer: 'return=headers-only' },
      body: { id: 4242, level: 1 },
    });
    expect(one).toMatchObject({ status: 201, headers: { location: '/gauge_levels?id=eq.4242' } });
    const both = await h.req('POST', '/key_pairs', {
      claims: SERVICE,
      headers: { prefer: 'return=headers-only' },
      body: { l: 1, r: 2 },
    });
    expect(both.headers.location).toBe('/key_pairs?l=eq.1&r=eq.2');
    const half = await h.req('POST', '/key_pairs', {
      claims: SERVICE,
      headers: { prefer: 'return=headers-only' },
      body: { l: 3 },
    });
    expect(half.headers.location).toBe('/key_pairs?l=eq.3&r=is.null');
  });
  it('give a view with a key PUT, one without none', async () => {
    expect((await h.req('OPTIONS', '/gauge_levels', { claims: SERVICE })).headers.allow).toBe(
      'OPTIONS,GET,HEAD,POST,PUT,PATCH,DELETE',
    );
    expect((await h.req('OPTIONS', '/gauge_levels_keyless', { claims: SERVICE })).headers.allow).toBe(
      'OPTIONS,GET,HEAD,POST,PATCH,DELETE',
    );
  });
});

describe("error texts as PostgREST's (suite: ErrorSpec, InsertSpec, UpdateSpec, QuerySpec, EmbedDisambiguationSpec)", () => {
  it('says only "Empty or invalid json" for a body that is not JSON (no parser message echoing the body)', async () => {
    const r = await h.req('POST', '/memos', { claims: SERVICE, body: '}{ x = 2' });
    expect(r).toMatchObject({
      status: 400,
      json: { code: 'PGRST102', details: null, message: 'Empty or invalid json' },
    });
    expect(r.text).toHaveLength(80);
  });
  it('says "All object keys must match" for an array of rows that are not all objects', async () => {
    const r = await h.req('POST', '/memos', { claims: SERVICE, body: [{ id: 100, body: 'x' }, 123, 'x'] });
    expect(r).toMatchObject({ status: 400, json: { code: 'PGRST102', message: 'All object keys must match' } });
  });
  it('hints the most alike table for an unknown one, when at least 3/4 alike', async () => {
    const near = await get('/gaugex');
    expect(near).toMatchObject({
      status: 404,
      json: { code: 'PGRST205', hint: "Perhaps you meant the table 'public.gauges'" },
    });
    expect((await get('/gxxxxxx')).json.hint).toBeNull();
  });
  it('describes a many-to-many by its junction and both constraints with their columns', async () => {
    const r = await get('/m_sites?select=*,m_projects(*)');
    expect(r.status).toBe(300);
    expect(r.json.details).toContainEqual({
      cardinality: 'many-to-many',
      embedding: 'm_sites with m_projects',
      relationship: 'm_jobs using m_jobs_site_id_fkey(site_id) and m_jobs_project_id_fkey(project_id)',
    });
  });
  it('names the step of a filter path that is not embedded, and refuses an order on one', async () => {
    const nested = await get('/titles?select=id,writers(id)&writers.books.id=eq.1');
    expect(nested).toMatchObject({
      status: 400,
      json: { code: 'PGRST108', message: "'books' is not an embedded resource in this request" },
    });
    const order = await get('/titles?select=id&order=writers(name)');
    expect(order).toMatchObject({
      status: 400,
      json: { code: 'PGRST108', message: "'writers' is not an embedded resource in this request" },
    });
  });
  it('reads in-lists as PostgREST: white space after ( skipped, an unclosed quote taken as written', async () => {
    const blank = await get('/gauges?id=in.( ,1)');
    expect(blank).toMatchObject({
      status: 400,
      json: { code: '22P02', message: 'invalid input syntax for type integer: ""' },
    });
    expect((await get('/gauges?id=in.( 1, 2)&order=id')).json).toEqual([
      { id: 1, level: 5 },
      { id: 2, level: 10 },
    ]);
    const quote = await get('/memos?body=in.(")');
    expect(quote.status).toBe(200);
  });
});

describe('inserts with ?columns', () => {
  const post = (path: string, body: unknown) =>
    h.req('POST', path, {
      claims: SERVICE,
      body,
      headers: { prefer: 'return=representation,missing=default' },
    });
  it("take a domain's default where the column has none of its own", async () => {
    expect((await post('/devils?columns=id,name', { name: 'Lu' })).json).toEqual([{ id: 666, name: 'Lu', at: null }]);
    expect((await post('/devils_own?columns=id,name', { name: 'Lu' })).json).toEqual([{ id: 420, name: 'Lu' }]);
  });
  it('read no key they leave out, not even as its type', async () => {
    const r = await post('/devils?columns=id,name', { id: 1, name: 'Al', at: 'not a time' });
    expect(r).toMatchObject({ status: 201, json: [{ id: 1, name: 'Al', at: null }] });
  });
});

describe('empty embeds', () => {
  it('leave out an embed that selects only empty embeds', async () => {
    const r = await get('/year_notes?select=note,yearly(year_notes())');
    expect(r).toMatchObject({ status: 200, json: [{ note: 'n' }] });
  });
});

describe('filters on embeds the select does not include', () => {
  it('name the first step of the path that no embed reaches (PGRST108)', async () => {
    const r = await get('/yearly?select=id,year_notes(note)&year_notes.nothere.note=eq.x');
    expect(r).toMatchObject({
      status: 400,
      json: { code: 'PGRST108', message: "'nothere' is not an embedded resource in this request" },
    });
    const top = await get('/yearly?select=id&nothere.note=eq.x');
    expect(top.json.message).toBe("'nothere' is not an embedded resource in this request");
  });
});

describe('Content-Location of reads', () => {
  it('names the table and the query string with its parameters sorted and encoded again', async () => {
    const sorted = await get('/gauges?select=id&order=id&id=eq.1');
    expect(sorted.headers['content-location']).toBe('/gauges?id=eq.1&order=id&select=id');
    expect((await get('/gauges')).headers['content-location']).toBe('/gauges');
    const encoded = await get('/gauges?level=in.(1,+5)&select=id');
    expect(encoded.headers['content-location']).toBe('/gauges?level=in.%281%2C%205%29&select=id');
    // A name outside printable ASCII goes percent-encoded (a header holds no other text).
    const unicode = await get(`/${encodeURIComponent('موارد')}`);
    expect(unicode).toMatchObject({ status: 200, headers: { 'content-location': '/%D9%85%D9%88%D8%A7%D8%B1%D8%AF' } });
    // Not on a function's answer.
    expect((await get('/rpc/gauges_upto?id=1')).headers['content-location']).toBeUndefined();
  });
});

describe('ambiguous many-to-many embeds', () => {
  it('name each junction with its two foreign keys and their columns (PGRST201)', async () => {
    const r = await get('/sites?select=*,works(*)');
    expect(r.status).toBe(300);
    const details = r.json.details as { cardinality: string; embedding: string; relationship: string }[];
    expect(details.every((d) => d.cardinality === 'many-to-many' && d.embedding === 'sites with works')).toBe(true);
    expect(details.map((d) => d.relationship).sort()).toEqual([
      'site_plans using site_plans_site_id_fkey(site_id) and site_plans_work_id_fkey(work_id)',
      'site_works using site_works_site_id_fkey(site_id) and site_works_work_id_fkey(work_id)',
    ]);
  });
});
