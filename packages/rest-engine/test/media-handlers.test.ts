// Media type handlers (PostgREST's): an aggregate whose result is a domain named after a media type answers a read
// of its relation (or, over anyelement, of any relation) when Accept asks for that media type; a domain named
// `*/*` answers any media type. Fixture: test/suite-fixture/0002-media-handlers.sql.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFetchHandler } from '../src/index.js';
import { type Harness, SERVICE, SUITE_FIXTURE, setup } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await setup({}, 2, SUITE_FIXTURE);
});
afterAll(async () => {
  await h?.close();
});

const get = (path: string, accept: string) => h.req('GET', path, { claims: SERVICE, headers: { accept } });
const TSV = 'text/tab-separated-values';

describe('media type handlers', () => {
  it("answer a relation's rows through its aggregate, in the aggregate's media type", async () => {
    const r = await get('/gauges?order=id', TSV);
    expect(r).toMatchObject({ status: 200, text: '1\t5\n2\t10\n3\t1\n' });
    expect(r.headers['content-type']).toBe(TSV);
    expect(r.headers['content-range']).toBe('0-2/*');
    // A function returning the relation's rows answers through the same aggregate.
    expect(await get('/rpc/gauges_upto?id=2&order=id', TSV)).toMatchObject({ status: 200, text: '1\t5\n2\t10\n' });
    // JSON is still JSON.
    expect((await get('/gauges?id=eq.1', 'application/json')).json).toEqual([{ id: 1, level: 5 }]);
  });

  it("take a relation's handler only for its whole row (no select, or select=*)", async () => {
    expect((await get('/gauges?select=*&id=eq.3', TSV)).text).toBe('3\t1\n');
    const r = await get('/gauges?select=id', TSV);
    expect(r).toMatchObject({ status: 406, json: { code: 'PGRST107' } });
  });

  it('answer any relation and any select through an anyelement aggregate', async () => {
    const r = await get('/gauges?select=level,id&order=id', `${TSV}, text/x-rows`);
    expect(r).toMatchObject({ status: 200, text: '(5,1)\n(10,2)\n(1,3)\n' });
    expect(r.headers['content-type']).toBe('text/x-rows');
  });

  it('send a domain over jsonb in its binary form, as PostgREST (a version byte first)', async () => {
    expect((await get('/gauges?order=id', 'application/x-marked')).text).toBe('\u0001[1, 2, 3]');
  });

  it('answer a write that returns its rows, and accept the media type of one that does not', async () => {
    const patch = (prefer: string) =>
      h.req('PATCH', '/gauges?id=eq.3', { claims: SERVICE, body: { level: 1 }, headers: { accept: TSV, prefer } });
    const rows = await patch('return=representation');
    expect(rows).toMatchObject({ status: 200, text: '3\t1\n' });
    expect(rows.headers['content-type']).toBe(TSV);
    expect(await patch('return=minimal')).toMatchObject({ status: 204, text: null });
  });

  it('answer HEAD without a body', async () => {
    const r = await h.req('HEAD', '/gauges', { claims: SERVICE, headers: { accept: TSV } });
    expect(r).toMatchObject({ status: 200, text: null });
    expect(r.headers['content-type']).toBe(TSV);
  });

  it('answer any media type through a */* domain, as application/octet-stream bytes', async () => {
    const fn = await h.engine.handle({ method: 'GET', path: '/rpc/raw_bytes', headers: { accept: 'app/bingo' } });
    expect(fn).toMatchObject({ status: 200, body: null });
    expect(Buffer.from(fn.bytes!)).toEqual(Buffer.from([0xff, 0x00, 0xfe]));
    expect(fn.headers['content-type']).toBe('application/octet-stream');
    // A relation's */* aggregate answers every media type, JSON included, but not the engine's vendored ones.
    const rows = await h.engine.handle({ method: 'GET', path: '/tallies', headers: { accept: 'application/json' } });
    expect(Buffer.from(rows.bytes!).toString()).toBe('12');
    const one = await get('/tallies?n=eq.1', 'application/vnd.pgrst.object+json');
    expect(one).toMatchObject({ status: 200, json: { n: 1 } });
  });

  it('send the bytes through the fetch handler', async () => {
    const handler = createFetchHandler(h.engine);
    const res = await handler(new Request('http://x/rpc/raw_bytes', { headers: { accept: '*/*' } }), {
      claims: SERVICE,
    });
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(Buffer.from(await res.arrayBuffer())).toEqual(Buffer.from([0xff, 0x00, 0xfe]));
  });
});
