// Function results and arguments shaped as PostgREST shapes them: one OUT parameter or a one-column TABLE gives
// rows with that column; VARIADIC parameters take an array by POST and the repeated parameter by GET; an empty
// select is every column; HEAD answers like GET without a body; PGRST202 hints the nearest name or parameters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, PGRST_FIXTURE, setup } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await setup({}, 2, PGRST_FIXTURE);
});
afterAll(async () => {
  await h?.close();
});

describe('result shapes', () => {
  it('one OUT parameter: an object with its name', async () => {
    expect(await h.req('GET', '/rpc/plus_one?num=5')).toMatchObject({ status: 200, json: { num_plus_one: 6 } });
    expect(await h.req('POST', '/rpc/plus_one', { body: { num: 1 } })).toMatchObject({ json: { num_plus_one: 2 } });
  });
  it('a one-column TABLE: objects, which select and filters address', async () => {
    expect((await h.req('GET', '/rpc/letters')).json).toEqual([{ letter: 'A' }, { letter: 'B' }]);
    expect((await h.req('GET', '/rpc/letters?letter=eq.B')).json).toEqual([{ letter: 'B' }]);
  });
  it('an empty select is every column, of a table and of a function', async () => {
    expect((await h.req('GET', '/slots?select=&id=eq.1')).json).toEqual([{ id: 1, label: 'slot 1' }]);
    expect((await h.req('GET', '/rpc/slot_range?lo=2&hi=2&select=')).json).toEqual([{ id: 2, label: 'slot 2' }]);
  });
  it('HEAD on a function: 200, the range, no body', async () => {
    const head = await h.req('HEAD', '/rpc/slot_range?lo=2&hi=4&limit=1&offset=1');
    expect(head).toMatchObject({ status: 200, text: null, headers: { 'content-range': '1-1/*' } });
  });
});

describe('calls', () => {
  it('a stable function returning a scalar runs once per call', async () => {
    const calls = async () => Number((await h.db.sql`select last_value from stable_calls`)[0]!.last_value);
    await h.req('POST', '/rpc/counted_stable', { body: { n: 0 } });
    const before = await calls();
    expect(await h.req('POST', '/rpc/counted_stable', { body: { n: 7 } })).toMatchObject({ status: 200, json: 7 });
    expect(await calls()).toBe(before + 1);
  });
});

describe('VARIADIC parameters', () => {
  it('by POST: an array', async () => {
    const r = await h.req('POST', '/rpc/joined', { body: { parts: ['hi', 'hello', 'there'] } });
    expect(r).toMatchObject({ status: 200, json: ['hi', 'hello', 'there'] });
  });
  it('by GET: the parameter repeated, once, or absent for its default', async () => {
    expect((await h.req('GET', '/rpc/joined?parts=hi&parts=there')).json).toEqual(['hi', 'there']);
    expect((await h.req('GET', '/rpc/joined?parts=hi')).json).toEqual(['hi']);
    expect((await h.req('GET', '/rpc/joined')).json).toEqual([]);
  });
  it('a repeated parameter that is not VARIADIC takes its last value', async () => {
    expect((await h.req('GET', '/rpc/greet?who=ignored&who=world&extra=x')).json).toBe('Hello, world');
  });
});

describe('PGRST202', () => {
  it('a misspelt name: the nearest function, and GET details without the json/jsonb clause', async () => {
    expect(await h.req('GET', '/rpc/slot_rang')).toMatchObject({
      status: 404,
      json: {
        code: 'PGRST202',
        message: 'Could not find the function public.slot_rang without parameters in the schema cache',
        details:
          'Searched for the function public.slot_rang without parameters, but no matches were found in the schema cache.',
        hint: 'Perhaps you meant to call the function public.slot_range',
      },
    });
  });
  it('a name far from any function: no hint', async () => {
    expect((await h.req('GET', '/rpc/zzzzzzzz')).json.hint).toBeNull();
  });
  it('arguments no overload takes: the nearest parameter list; POST details name the json/jsonb clause', async () => {
    expect(await h.req('POST', '/rpc/add_numbers', { body: { a: 1, c: 2 } })).toMatchObject({
      status: 404,
      json: {
        message: 'Could not find the function public.add_numbers(a, c) in the schema cache',
        details:
          'Searched for the function public.add_numbers with parameters a, c or with a single unnamed json/jsonb ' +
          'parameter, but no matches were found in the schema cache.',
        hint: 'Perhaps you meant to call the function public.add_numbers(a, b)',
      },
    });
  });
});

describe('arguments and ranges as PostgREST reads them', () => {
  it('by GET, an entry that reads as no filter is an argument, also one no overload takes (404)', async () => {
    const r = await h.req('GET', '/rpc/add_numbers?a=1&b=2&other=x');
    expect(r).toMatchObject({
      status: 404,
      json: {
        code: 'PGRST202',
        message: 'Could not find the function public.add_numbers(a, b, other) in the schema cache',
        hint: 'Perhaps you meant to call the function public.add_numbers(a, b)',
      },
    });
    expect((await h.req('GET', '/rpc/add_numbers?a=1&b=2')).json).toBe(3);
    // An empty name is no argument (unnamed parameters are not called by name).
    expect((await h.req('GET', '/rpc/letters?=x')).json.code).toBe('PGRST100');
  });
  it('by POST, an entry of the query string that reads as no filter is an error', async () => {
    const r = await h.req('POST', '/rpc/add_numbers?a=1', { body: { a: 1, b: 2 } });
    expect(r.status).toBe(400);
    expect(r.json.code).toBe('PGRST100');
  });
  it('the Range header counts for GET alone: HEAD ignores it', async () => {
    const range = { range: '0-0', 'range-unit': 'items', prefer: 'count=exact' };
    const get = await h.req('GET', '/rpc/slot_range?lo=2&hi=4', { headers: range });
    expect(get).toMatchObject({ status: 206, headers: { 'content-range': '0-0/3' } });
    const head = await h.req('HEAD', '/rpc/slot_range?lo=2&hi=4', { headers: range });
    expect(head).toMatchObject({ status: 200, headers: { 'content-range': '0-2/3' } });
    const table = await h.req('HEAD', '/slots?id=lte.3', { headers: range });
    expect(table).toMatchObject({ status: 200, headers: { 'content-range': '0-2/3' } });
  });
  it('char and bit parameters take values of any length, as their varying types', async () => {
    const chars = await h.req('GET', '/rpc/char_param_select?char_=abcdefg&char_arr={abc,abcdefg}');
    expect(chars).toMatchObject({ status: 200, json: [{ char_: 'abcdefg', char_arr: ['abc', 'abcdefg'] }] });
    const bits = await h.req('GET', '/rpc/bit_param_select?bit_=101010&bit_arr={101,101010}');
    expect(bits).toMatchObject({ status: 200, json: [{ bit_: '101010', bit_arr: ['101', '101010'] }] });
  });
  it("a function returning a domain over a table's row type embeds as the table", async () => {
    const r = await h.req('GET', '/rpc/project_rows?lo=2&select=id,tasks(title)&order=id');
    expect(r).toMatchObject({
      status: 200,
      json: [
        { id: 2, tasks: [{ title: 'Survey site' }] },
        { id: 3, tasks: [{ title: 'Fix hinge' }] },
      ],
    });
  });
});
