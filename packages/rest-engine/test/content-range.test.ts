// Content-Range as PostgREST 13 sends it: inserts and deletes name only a count (`*/*`, `*/N`), updates the range of
// rows updated, every function call a range (a scalar is one row); and the Range errors (416 PGRST103) with their
// details, a 416 past the end saying the total (`*/N`).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, PGRST_FIXTURE, SERVICE, setup } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await setup({ txRollbackAllowed: true }, 2, PGRST_FIXTURE);
});
afterAll(async () => {
  await h?.close();
});

const write = (method: string, path: string, prefer: string, body?: unknown) =>
  h.req(method, path, { claims: SERVICE, body, headers: { prefer: `${prefer},tx=rollback` } });
const range416 = (details: string) => ({ status: 416, json: { code: 'PGRST103', details, hint: null } });

describe('writes', () => {
  it('DELETE: */* without a count, */N with one', async () => {
    expect((await write('DELETE', '/slots?id=lte.3', 'return=minimal')).headers['content-range']).toBe('*/*');
    const counted = await write('DELETE', '/slots?id=lte.3', 'return=representation,count=exact');
    expect(counted).toMatchObject({ status: 200, headers: { 'content-range': '*/3' } });
  });
  it('PATCH: the rows updated', async () => {
    expect((await write('PATCH', '/slots?id=lte.2', 'return=minimal', { label: 'x' })).headers['content-range']).toBe(
      '0-1/*',
    );
    const counted = await write('PATCH', '/slots?id=lte.2', 'count=exact', { label: 'x' });
    expect(counted.headers['content-range']).toBe('0-1/2');
    const none = await write('PATCH', '/slots?id=lt.0', 'return=minimal', { label: 'x' });
    expect(none.headers['content-range']).toBe('*/*');
  });
  it('POST: */*', async () => {
    expect((await write('POST', '/slots', 'return=minimal', { id: 90 })).headers['content-range']).toBe('*/*');
  });
});

describe('function calls', () => {
  it('a scalar is one row, a set of scalars its rows, without a count too', async () => {
    expect((await h.req('POST', '/rpc/add_numbers', { body: { a: 1 } })).headers['content-range']).toBe('0-0/*');
    expect((await h.req('GET', '/rpc/numbers?n=3')).headers['content-range']).toBe('0-2/*');
  });
});

describe('Range errors', () => {
  it('an offset past the counted rows: 416 with the total in Content-Range', async () => {
    const past = await h.req('GET', '/slots?offset=100', { headers: { prefer: 'count=exact' } });
    expect(past).toMatchObject(range416('An offset of 100 was requested, but there are only 15 rows.'));
    expect(past.headers['content-range']).toBe('*/15');
    const none = await h.req('GET', '/slots?id=lt.0&offset=1', { headers: { prefer: 'count=exact' } });
    expect(none).toMatchObject({ ...range416('An offset of 1 was requested, but there are only 0 rows.') });
    expect(none.headers['content-range']).toBe('*/0');
  });
  it('an offset at the end is an empty page (partial: 206), not an error', async () => {
    const end = await h.req('GET', '/slots?offset=15', { headers: { prefer: 'count=exact' } });
    expect(end).toMatchObject({ status: 206, json: [], headers: { 'content-range': '*/15' } });
  });
  it('a Range header whose end is before its start', async () => {
    const r = await h.req('GET', '/slots', { headers: { range: '1-0' } });
    expect(r).toMatchObject(
      range416('The lower boundary must be lower than or equal to the upper boundary in the Range header.'),
    );
  });
  it('a negative limit', async () => {
    expect(await h.req('GET', '/slots?limit=-1')).toMatchObject(
      range416('Limit should be greater than or equal to zero.'),
    );
  });
});
