// Content-Profile names the schema of an answer with a body when the schema was negotiated: a profile header was
// sent, or several schemas are exposed (the default one counts as chosen). With one schema and no profile header
// the answer does not name it, as in PostgREST.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, PGRST_FIXTURE, SERVICE, setup } from './helpers.js';

let two: Harness;
let one: Harness;
beforeAll(async () => {
  two = await setup({ schemas: ['public', 'alt'] }, 2, PGRST_FIXTURE);
  one = await setup({}, 1, PGRST_FIXTURE);
});
afterAll(async () => {
  await two?.close();
  await one?.close();
});

describe('several schemas exposed', () => {
  it('a read of the default schema names it', async () => {
    const r = await two.req('GET', '/slots?id=eq.1');
    expect(r).toMatchObject({ status: 200, headers: { 'content-profile': 'public' } });
  });
  it('a read of the other schema by Accept-Profile names that one', async () => {
    const r = await two.req('GET', '/slots', { headers: { 'accept-profile': 'alt' } });
    expect(r).toMatchObject({ status: 200, json: [{ id: 1, note: 'alt one' }], headers: { 'content-profile': 'alt' } });
  });
  it('a write by Content-Profile names it with its representation, and not on a 204', async () => {
    const headers = { 'content-profile': 'alt', prefer: 'return=representation' };
    const r = await two.req('PATCH', '/slots?id=eq.1', { claims: SERVICE, headers, body: { note: 'x' } });
    expect(r).toMatchObject({ status: 200, headers: { 'content-profile': 'alt' } });
    const minimal = await two.req('DELETE', '/slots?id=eq.99', {
      claims: SERVICE,
      headers: { 'content-profile': 'alt' },
    });
    expect(minimal.status).toBe(204);
    expect(minimal.headers['content-profile']).toBeUndefined();
  });
  it('a function call and the OpenAPI document name it too; an error does not', async () => {
    expect((await two.req('GET', '/rpc/add_numbers?a=1')).headers['content-profile']).toBe('public');
    expect((await two.req('GET', '/', { headers: { 'accept-profile': 'alt' } })).headers['content-profile']).toBe(
      'alt',
    );
    expect((await two.req('GET', '/no_such_table')).headers['content-profile']).toBeUndefined();
  });
});

describe('one schema exposed', () => {
  it('no Content-Profile without a profile header, the schema with one', async () => {
    expect((await one.req('GET', '/slots?id=eq.1')).headers['content-profile']).toBeUndefined();
    const asked = await one.req('GET', '/slots?id=eq.1', { headers: { 'accept-profile': 'public' } });
    expect(asked.headers['content-profile']).toBe('public');
  });
});
