// Functions answering in a media type of their own (PostgREST's media type domains): a function whose return type
// is a domain named like a media type (`create domain "text/html" as text`) answers its value as it is, in that
// media type, when the request's Accept asks for it; media types the engine does not produce are otherwise 406.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, SERVICE, SUITE_FIXTURE, setup } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await setup({}, 2, SUITE_FIXTURE);
});
afterAll(async () => {
  await h?.close();
});

const get = (path: string, accept: string) => h.req('GET', path, { claims: SERVICE, headers: { accept } });
const notAcceptable = (accept: string) => ({
  status: 406,
  json: { code: 'PGRST107', message: `None of these media types are available: ${accept}`, details: null, hint: null },
});

describe('media type functions', () => {
  it('answer raw in their media type when asked for it', async () => {
    const plain = await get('/rpc/hello_plain', 'text/plain');
    expect(plain).toMatchObject({ status: 200, text: 'Hello' });
    expect(plain.headers['content-type']).toBe('text/plain; charset=utf-8');
    const page = await get('/rpc/hello_page', 'text/html');
    expect(page).toMatchObject({ status: 200, text: '<h1>Hello</h1>' });
    expect(page.headers['content-type']).toBe('text/html');
  });
  it('answer JSON when JSON is asked for', async () => {
    expect((await get('/rpc/hello_plain', 'application/json')).json).toBe('Hello');
  });
  it('take a raw body and answer raw', async () => {
    const r = await h.req('POST', '/rpc/echo_xml', {
      claims: SERVICE,
      body: '<a>b</a>',
      headers: { 'content-type': 'text/xml', accept: 'text/xml' },
    });
    expect(r).toMatchObject({ status: 200, text: '<a>b</a>' });
    expect(r.headers['content-type']).toBe('text/xml; charset=utf-8');
  });
  it('are 406 for another media type, for a set of values, and for tables', async () => {
    expect(await get('/rpc/hello_plain', 'text/html')).toMatchObject(notAcceptable('text/html'));
    expect(await get('/rpc/hello_twice', 'text/plain')).toMatchObject(notAcceptable('text/plain'));
    expect(await get('/gauges', 'text/plain')).toMatchObject(notAcceptable('text/plain'));
  });
  it('leave a missing table 404', async () => {
    expect((await get('/no_such_table', 'text/plain')).status).toBe(404);
  });
});
