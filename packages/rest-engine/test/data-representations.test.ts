// Data representations (PostgREST's): a column whose type is a domain with casts to json, from json and from text
// is answered, written and filtered through them: here a colour stored as an integer and spoken as '#RRGGBB'.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, SERVICE, SUITE_FIXTURE, setup } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await setup({}, 2, SUITE_FIXTURE);
});
afterAll(async () => {
  await h?.close();
});

const req = (method: string, path: string, body?: unknown, prefer?: string) =>
  h.req(method, path, { claims: SERVICE, body, headers: prefer ? { prefer } : {} });

describe('data representations', () => {
  it('answer through the cast to json, also under * and with a further cast', async () => {
    expect((await req('GET', '/swatches?order=id')).json).toEqual([
      { id: 1, name: 'black', colour: '#000000' },
      { id: 2, name: 'blue', colour: '#0000FF' },
    ]);
    expect((await req('GET', '/swatches?select=c:colour::text&id=eq.2')).json).toEqual([{ c: '"#0000FF"' }]);
  });
  it('filter through the cast from text', async () => {
    expect((await req('GET', '/swatches?select=id&colour=eq.0000FF')).json).toEqual([{ id: 2 }]);
    expect((await req('GET', '/swatches?select=id&colour=in.(000000,0000FF)&order=id')).json).toEqual([
      { id: 1 },
      { id: 2 },
    ]);
  });
  it('leave LIKE patterns to the base type (no text cast for them)', async () => {
    const r = await req('GET', '/swatches?select=id&colour=ilike.*FF');
    expect(r.status).toBe(404);
    expect(r.json.code).toBe('42883');
  });
  it('are written through the cast from json', async () => {
    const ins = await req('POST', '/swatches', { id: 3, name: 'red', colour: '#FF0000' }, 'return=representation');
    expect(ins.status).toBe(201);
    expect(ins.json).toEqual([{ id: 3, name: 'red', colour: '#FF0000' }]);
    expect(await h.db.sql`select colour::int as c from swatches where id = 3`).toEqual([{ c: 16711680 }]);
    const upd = await req('PATCH', '/swatches?id=eq.3', { colour: '#00FF00' }, 'return=representation');
    expect(upd.json).toEqual([{ id: 3, name: 'red', colour: '#00FF00' }]);
  });
  it('are not read when a PATCH updates no row', async () => {
    const r = await req('PATCH', '/swatches?id=eq.999', { colour: 'not a colour' }, 'return=representation');
    expect(r.status).toBe(200);
    expect(r.json).toEqual([]);
  });
});
