// Request bodies that are not JSON, and body and query-string shapes PostgREST's own test suite sends: HTML forms
// (to tables and functions, a repeated key making a VARIADIC array), CSV, a raw text to a function's single
// unnamed parameter, PATCH and calls with an array body, ?columns on calls, and GET calls whose query string names an argument twice.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, SERVICE, SUITE_FIXTURE, setup } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await setup({}, 2, SUITE_FIXTURE);
});
afterAll(async () => {
  await h?.close();
});

const send = (method: string, path: string, body: string, headers: Record<string, string>) =>
  h.req(method, path, { claims: SERVICE, body, headers });
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe('HTML forms', () => {
  it('insert a row, each value read from its text', async () => {
    const r = await send('POST', '/memos', 'id=1&body=forms+are+fun&score=7', {
      ...FORM,
      prefer: 'return=representation',
    });
    expect(r.status).toBe(201);
    expect(r.json).toEqual([{ id: 1, body: 'forms are fun', score: 7 }]);
  });
  it('call a function with named arguments', async () => {
    expect((await send('POST', '/rpc/add_them', 'a=1&b=2', FORM)).json).toBe(3);
  });
  it('take the key that names the prototype as a column like any other (refused as unknown)', async () => {
    const r = await send('POST', '/memos', 'id=3&body=b&__proto__=x&__proto__=y', FORM);
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.json)).toContain('__proto__');
    expect((await send('GET', '/memos?id=eq.3', '', {})).json).toEqual([]);
  });
  it('give a VARIADIC parameter one value or, by a repeated key, several', async () => {
    expect((await send('POST', '/rpc/joined_words', 'words=hi', FORM)).json).toBe('hi');
    expect((await send('POST', '/rpc/joined_words', 'words=hi&words=there', FORM)).json).toBe('hi there');
  });
});

describe('CSV', () => {
  it('inserts rows named by the header line; a bare NULL is null, a quoted one text', async () => {
    const r = await send('POST', '/memos', 'id,body,score\n10,"a, b",1\n11,NULL,2\n12,"NULL",3\n', {
      'content-type': 'text/csv',
      prefer: 'return=representation',
    });
    expect(r.status).toBe(201);
    expect(r.json).toEqual([
      { id: 10, body: 'a, b', score: 1 },
      { id: 11, body: null, score: 2 },
      { id: 12, body: 'NULL', score: 3 },
    ]);
  });
  it('refuses an unterminated quoted field, writing nothing', async () => {
    const r = await send('POST', '/memos', 'id,body\n21,"never closed\n', { 'content-type': 'text/csv' });
    expect([r.status, r.json.code]).toEqual([400, 'PGRST102']);
    expect((await send('GET', '/memos?id=eq.21', '', {})).json).toEqual([]);
  });
  it('refuses lines of unequal length', async () => {
    const r = await send('POST', '/memos', 'id,body\n20\n', { 'content-type': 'text/csv' });
    expect(r.status).toBe(400);
    expect(r.json.code).toBe('PGRST102');
  });
});

describe('raw text to a function', () => {
  it('goes whole to the single unnamed text parameter', async () => {
    expect((await send('POST', '/rpc/shout_text', 'a simple text', { 'content-type': 'text/plain' })).json).toBe(
      'A SIMPLE TEXT',
    );
  });
  it('is 404 PGRST202 when no overload has a single unnamed parameter of that type', async () => {
    const r = await send('POST', '/rpc/add_them', 'a simple text', { 'content-type': 'text/xml' });
    expect(r.status).toBe(404);
    expect(r.json).toEqual({
      code: 'PGRST202',
      message: 'Could not find the function public.add_them in the schema cache',
      details:
        'Searched for the function public.add_them with a single unnamed xml parameter, but no matches were found in the schema cache.',
      hint: null,
    });
  });
});

describe('PATCH with an array body', () => {
  it('updates with its first object', async () => {
    await send('POST', '/memos', JSON.stringify({ id: 30, body: 'old', score: 0 }), {});
    const r = await send('PATCH', '/memos?id=eq.30', JSON.stringify([{ body: 'new' }]), {
      prefer: 'return=representation',
    });
    expect(r.json).toEqual([{ id: 30, body: 'new', score: 0 }]);
  });
  it('updates nothing with an empty array', async () => {
    const r = await send('PATCH', '/memos?id=eq.30', '[]', {});
    expect(r.status).toBe(204);
    expect((await h.req('GET', '/memos?id=eq.30&select=body', { claims: SERVICE })).json).toEqual([{ body: 'new' }]);
  });
});

describe('PATCH with ?columns', () => {
  const patch = (path: string, body: object, prefer: string) =>
    send('PATCH', path, JSON.stringify(body), { 'content-type': 'application/json', prefer });
  it('gives a named column the body lacks its default under missing=default, and says so', async () => {
    const r = await patch(
      '/tickets?id=eq.1&columns=title,priority',
      { title: 'one' },
      'return=representation, missing=default',
    );
    expect([r.status, r.headers['preference-applied']]).toEqual([200, 'missing=default, return=representation']);
    expect(r.json).toEqual([{ id: 1, title: 'one', priority: 3, note: 'n1' }]);
  });
  it('sets a named column the body lacks to null without missing=default', async () => {
    const r = await patch('/tickets?id=eq.2&columns=title,priority', { title: 'two' }, 'return=representation');
    expect(r.json).toEqual([{ id: 2, title: 'two', priority: null, note: 'n2' }]);
  });
  it('does not read the keys ?columns leaves out, not even as their columns’ types', async () => {
    const r = await patch(
      '/tickets?id=eq.3&columns=title',
      { title: 'three', priority: 'not a number' },
      'return=representation',
    );
    expect([r.status, r.json]).toEqual([200, [{ id: 3, title: 'three', priority: 1, note: 'n3' }]]);
  });
  it('takes a view column’s own default through the view', async () => {
    const r = await patch(
      '/tickets_view?id=eq.4&columns=title,note',
      { note: 'n' },
      'return=representation, missing=default',
    );
    expect(r.json).toEqual([{ id: 4, title: 'Untitled', priority: 1, note: 'n' }]);
  });
});

describe('POST calls', () => {
  it('call with the first object of an array body', async () => {
    const rows = JSON.stringify([
      { a: 1, b: 2 },
      { a: 4, b: 6 },
    ]);
    expect((await send('POST', '/rpc/add_them', rows, {})).json).toBe(3);
  });
  it('take as arguments only the keys ?columns names', async () => {
    const body = JSON.stringify({ a: 1, b: 2, other: 'ignored' });
    expect((await send('POST', '/rpc/add_them?columns=a,b', body, {})).json).toBe(3);
  });
  it('read a CSV body as named arguments, never as one json value', async () => {
    expect((await send('POST', '/rpc/add_them', 'a,b\n1,2\n', { 'content-type': 'text/csv' })).json).toBe(3);
    const r = await send('POST', '/rpc/add_them', 'x,y\n1,2\n', { 'content-type': 'text/csv' });
    expect(r.status).toBe(404);
    expect(r.json.details).toBe(
      'Searched for the function public.add_them with parameters x, y, but no matches were found in the schema cache.',
    );
  });
});

describe('GET calls', () => {
  it('take an entry that reads as a filter as a filter, even when it names an argument', async () => {
    const r = await h.req('GET', '/rpc/gauges_upto?id=3&id=gt.1&select=id&order=id', { claims: SERVICE });
    expect(r.status).toBe(200);
    expect(r.json).toEqual([{ id: 2 }, { id: 3 }]);
  });
});
