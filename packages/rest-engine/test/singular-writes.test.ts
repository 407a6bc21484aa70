// Writes asked for as a single object (Accept: application/vnd.pgrst.object+json) that affect no row or several:
// the answer is 406 PGRST116 and the write is rolled back, whatever the return preference, as in PostgREST. The
// rows are read back from the database itself after each refusal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, PGRST_FIXTURE, SERVICE, setup } from './helpers.js';

const OBJECT = 'application/vnd.pgrst.object+json';
const pgrst116 = (rows: number) => ({
  status: 406,
  headers: { 'content-type': 'application/json; charset=utf-8' },
  json: {
    code: 'PGRST116',
    message: 'Cannot coerce the result to a single JSON object',
    details: `The result contains ${rows} rows`,
    hint: null,
  },
});

let h: Harness;
beforeAll(async () => {
  h = await setup({}, 2, PGRST_FIXTURE);
});
afterAll(async () => {
  await h?.close();
});

const write = (method: string, path: string, prefer: string | null, body?: unknown) =>
  h.req(method, path, { claims: SERVICE, body, headers: { accept: OBJECT, ...(prefer ? { prefer } : {}) } });
const labels = async () => (await h.db.sql`select id, label from slots order by id`).map((r) => `${r.id}:${r.label}`);

describe.each(['return=minimal', 'return=representation', null])('with %s', (prefer) => {
  it('PATCH of several rows is refused and changes nothing', async () => {
    const before = await labels();
    expect(await write('PATCH', '/slots?id=lte.4', prefer, { label: 'changed' })).toMatchObject(pgrst116(4));
    expect(await labels()).toEqual(before);
  });
  it('PATCH of no row is refused', async () => {
    expect(await write('PATCH', '/slots?id=gt.0&id=lt.0', prefer, { label: 'x' })).toMatchObject(pgrst116(0));
  });
  it('POST of two rows is refused and inserts neither', async () => {
    const rows = [
      { id: 200, label: 'a' },
      { id: 201, label: 'b' },
    ];
    expect(await write('POST', '/slots', prefer, rows)).toMatchObject(pgrst116(2));
    expect(await h.db.sql`select id from slots where id >= 200`).toHaveLength(0);
  });
  it('POST of no row is refused', async () => {
    expect(await write('POST', '/slots', prefer, [])).toMatchObject(pgrst116(0));
  });
  it('DELETE of several rows is refused and deletes none', async () => {
    const before = await labels();
    expect(await write('DELETE', '/slots?id=gt.5&id=lt.11', prefer)).toMatchObject(pgrst116(5));
    expect(await labels()).toEqual(before);
  });
  it('DELETE of no row is refused', async () => {
    expect(await write('DELETE', '/slots?id=lt.0', prefer)).toMatchObject(pgrst116(0));
  });
});

describe('one row', () => {
  it('PATCH with return=minimal answers 204 and keeps the change', async () => {
    const r = await write('PATCH', '/slots?id=eq.1', 'return=minimal', { label: 'one' });
    expect(r).toMatchObject({ status: 204, text: null, headers: { 'preference-applied': 'return=minimal' } });
    expect(r.headers['content-type']).toBeUndefined();
    expect((await h.db.sql`select label from slots where id = 1`)[0]!.label).toBe('one');
  });
  it('POST with return=representation answers the object', async () => {
    const r = await write('POST', '/slots', 'return=representation', [{ id: 102, label: 'new' }]);
    expect(r).toMatchObject({ status: 201, json: { id: 102, label: 'new' } });
  });
  it('DELETE with return=minimal answers 204 and deletes it', async () => {
    expect(await write('DELETE', '/slots?id=eq.12', 'return=minimal')).toMatchObject({ status: 204, text: null });
    expect(await h.db.sql`select id from slots where id = 12`).toHaveLength(0);
  });
});

describe('RPC', () => {
  const names = async () =>
    (await h.db.sql`select name from projects where id in (1, 2) order by id`).map((r) => r.name);

  it('a function that writes several rows is refused and its writes rolled back', async () => {
    const before = await names();
    const r = await write('POST', '/rpc/rename_projects', null, { lo: 1, hi: 2, new_name: 'changed' });
    expect(r).toMatchObject(pgrst116(2));
    expect(await names()).toEqual(before);
  });
  it('a function that writes no row is refused', async () => {
    const r = await write('POST', '/rpc/rename_projects', null, { lo: 90, hi: 99, new_name: 'changed' });
    expect(r).toMatchObject(pgrst116(0));
  });
  it('a set of scalars of several rows is refused; one scalar is the object', async () => {
    expect(await write('POST', '/rpc/numbers', null, { n: 3 })).toMatchObject(pgrst116(3));
    expect(await write('POST', '/rpc/numbers', null, { n: 1 })).toMatchObject({ status: 200, json: 1 });
    expect(await write('POST', '/rpc/add_numbers', null, { a: 1 })).toMatchObject({ status: 200, json: 2 });
  });
  it('a function writing one row keeps its write', async () => {
    const r = await write('POST', '/rpc/rename_projects', null, { lo: 3, hi: 3, new_name: 'Cellar door 2' });
    expect(r).toMatchObject({ status: 200, json: { id: 3, name: 'Cellar door 2' } });
    expect((await h.db.sql`select name from projects where id = 3`)[0]!.name).toBe('Cellar door 2');
  });
});
