// Preference-Applied names the preferences a request's plan applied, in PostgREST's order (resolution, missing,
// return, count, tx, handling, timezone, max-affected), whatever order the request gave them in: clients and
// PostgREST's suite compare the header as one string. Each plan kind names only what it applies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, PGRST_FIXTURE, SERVICE, setup } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await setup({ txRollbackAllowed: true }, 2, PGRST_FIXTURE);
});
afterAll(async () => {
  await h?.close();
});

const applied = async (method: string, path: string, prefer: string, body?: unknown) => {
  const r = await h.req(method, path, { claims: SERVICE, body, headers: { prefer: `${prefer}, tx=rollback` } });
  expect(r.status, JSON.stringify(r.json)).toBeLessThan(300);
  return r.headers['preference-applied'];
};

describe("PostgREST's order", () => {
  it('an upsert: resolution, missing, return, count, tx', async () => {
    const prefer = 'count=exact, return=representation, missing=default, resolution=merge-duplicates';
    expect(await applied('POST', '/slots?columns=id,label', prefer, [{ id: 1, label: 'one' }])).toBe(
      'resolution=merge-duplicates, missing=default, return=representation, count=exact, tx=rollback',
    );
  });
  it('an update: missing before return; handling and max-affected last', async () => {
    const prefer = 'max-affected=5, return=representation, handling=strict, missing=default';
    expect(await applied('PATCH', '/slots?id=eq.1&columns=label', prefer, { label: 'x' })).toBe(
      'missing=default, return=representation, tx=rollback, handling=strict, max-affected=5',
    );
  });
  it('a delete: return before count', async () => {
    expect(await applied('DELETE', '/slots?id=eq.2', 'count=exact, return=representation')).toBe(
      'return=representation, count=exact, tx=rollback',
    );
  });
  it('a read: handling before timezone', async () => {
    const r = await h.req('GET', '/slots?id=eq.1', { headers: { prefer: 'timezone=Asia/Tokyo, handling=strict' } });
    expect(r.headers['preference-applied']).toBe('handling=strict, timezone=Asia/Tokyo');
  });
});

describe('what each plan applies', () => {
  it('a call applies max-affected under handling=strict, but no return', async () => {
    const prefer = 'return=representation, max-affected=5, handling=strict';
    expect(await applied('POST', '/rpc/rename_projects', prefer, { lo: 1, hi: 1, new_name: 'p' })).toBe(
      'tx=rollback, handling=strict, max-affected=5',
    );
  });
  it('max-affected without handling=strict is not applied', async () => {
    expect(await applied('DELETE', '/slots?id=eq.3', 'max-affected=5')).toBe('tx=rollback');
  });
  it('an insert without a conflict target does not apply resolution', async () => {
    const prefer = 'resolution=ignore-duplicates, return=minimal';
    expect(await applied('POST', '/readings', prefer, { label: 'a', value: 1 })).toBe('return=minimal, tx=rollback');
    expect(await applied('POST', '/readings?on_conflict=label', prefer, { label: 'a', value: 1 })).toBe(
      'resolution=ignore-duplicates, return=minimal, tx=rollback',
    );
  });
  it('a read applies neither return nor missing', async () => {
    const r = await h.req('GET', '/slots?id=eq.1', { headers: { prefer: 'return=representation, missing=default' } });
    expect(r.headers['preference-applied']).toBeUndefined();
  });
});
