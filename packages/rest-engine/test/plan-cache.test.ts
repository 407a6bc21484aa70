// Reuse across requests: cached plans of repeated GETs (per caller context, never per caller data), prepared
// statements and both caches after a schema change; HEAD and OPTIONS on functions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setup, USER_A, USER_B, type Harness } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await setup({ listen: false });
});
afterAll(async () => {
  await h.close();
});

describe('plan cache and prepared statements', () => {
  it("answers the same cached request with each caller's own context", async () => {
    for (let i = 0; i < 3; i++) {
      expect((await h.req('GET', '/rpc/whoami', { claims: USER_A })).json).toBe('user-a');
      expect((await h.req('GET', '/rpc/whoami', { claims: USER_B })).json).toBe('user-b');
      expect(await h.req('GET', '/rpc/current_role_name')).toMatchObject({ status: 200, json: 'anon' });
    }
  });

  it('keys on the headers that shape the plan', async () => {
    const list = await h.req('GET', '/users?select=id&order=id&limit=2');
    const one = await h.req('GET', '/users?select=id&order=id&limit=2', {
      headers: { accept: 'application/vnd.pgrst.object+json' },
    });
    const ranged = await h.req('GET', '/users?select=id&order=id&limit=2', { headers: { range: '1-1' } });
    const counted = await h.req('GET', '/users?select=id&order=id&limit=2', { headers: { prefer: 'count=exact' } });
    expect(list.json).toEqual([{ id: 1 }, { id: 2 }]);
    expect(one).toMatchObject({ status: 406, json: { code: 'PGRST116' } });
    expect(ranged.json).toEqual([{ id: 2 }]);
    expect(counted.headers['content-range']).toMatch(/^0-1\/\d+$/);
    expect((await h.req('GET', '/users?select=id&order=id&limit=2')).json).toEqual(list.json);
  });

  it('plans and prepares again after a schema reload, even when a column changes type', async () => {
    await h.db.sql.unsafe(`create table reload_probe (id int primary key, n int not null);
      insert into reload_probe values (1, 5), (2, 6); grant select on reload_probe to anon`);
    await h.engine.reloadSchema();
    for (let i = 0; i < 3; i++) expect((await h.req('GET', '/reload_probe?n=eq.5')).json).toEqual([{ id: 1, n: 5 }]);
    await h.db.sql.unsafe(
      'alter table reload_probe alter column n type text using n::text; ' +
        "alter table reload_probe add column note text default 'x'",
    );
    await h.engine.reloadSchema();
    for (let i = 0; i < 3; i++) {
      expect(await h.req('GET', '/reload_probe?n=eq.5')).toMatchObject({
        status: 200,
        json: [{ id: 1, n: '5', note: 'x' }],
      });
    }
  });

  it('prepares at most the configured number of distinct statements and still answers the rest', async () => {
    const small = await setup({ listen: false, preparedStatements: 1, planCacheSize: 1 });
    try {
      for (const q of [
        '/users?select=id&id=eq.1',
        '/users?select=name&id=eq.1',
        '/users?select=id&id=eq.1',
        '/users?select=email&id=eq.1',
      ]) {
        expect((await small.req('GET', q)).status).toBe(200);
      }
      expect((await small.req('GET', '/users?select=name&id=eq.1')).json).toEqual([{ name: 'Ada' }]);
    } finally {
      await small.close();
    }
  });
});

describe('functions: HEAD and OPTIONS', () => {
  it('HEAD runs a stable function read-only and sends no body', async () => {
    const head = await h.req('HEAD', '/rpc/numbers?n=3', { headers: { prefer: 'count=exact' } });
    expect(head).toMatchObject({ status: 200, text: null });
    expect(head.headers['content-type']).toBe('application/json; charset=utf-8');
    const get = await h.req('GET', '/rpc/numbers?n=3');
    expect(get.json).toEqual([1, 2, 3]);
  });

  it('HEAD on a volatile function is refused like GET', async () => {
    const head = await h.req('HEAD', '/rpc/make_tag?p_name=x', { claims: USER_A });
    const get = await h.req('GET', '/rpc/make_tag?p_name=x', { claims: USER_A });
    expect(head.status).toBe(get.status);
    expect(head.text).toBeNull();
    expect(get.status).toBeGreaterThanOrEqual(400);
  });

  it('OPTIONS lists the methods a function accepts', async () => {
    const opts = await h.req('OPTIONS', '/rpc/add_numbers');
    expect(opts).toMatchObject({ status: 200, text: null });
    expect(opts.headers.allow).toBe('OPTIONS,GET,HEAD,POST');
  });
});
