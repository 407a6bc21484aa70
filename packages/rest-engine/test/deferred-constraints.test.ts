// A write that is rolled back (Prefer: tx=rollback, or db-tx-end rollback) still answers for its deferred
// constraints, as PostgREST: they are checked before the rollback, so the request fails as a committed one would.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, SERVICE, SUITE_FIXTURE, setup } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await setup({ txEnd: 'commit-allow-override' }, 2, SUITE_FIXTURE);
});
afterAll(async () => {
  await h?.close();
});

const call = (prefer: string) =>
  h.req('POST', '/rpc/break_deferred', { claims: SERVICE, body: {}, headers: { prefer } });

describe('deferred constraints', () => {
  it.each(['tx=commit', 'tx=rollback', 'return=representation'])('fail the request with %s', async (prefer) => {
    const r = await call(prefer);
    expect(r.status).toBe(409);
    expect(r.json.code).toBe('23505');
  });
  it('leave nothing behind', async () => {
    await call('tx=rollback');
    expect(await h.db.sql`select * from deferred_once`).toHaveLength(0);
  });
});
