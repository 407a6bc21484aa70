// A write whose transaction PostgreSQL rolled back for a deadlock (40P01): with `conflictRetries` the engine runs it
// again once the other has gone on, and both writes are answered 200 and committed once each, as if they had come one
// after the other; without (PostgREST's way) the rolled-back one answers 500 40P01. The deadlock: crossing-writes.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRestEngine, type RestEngine } from '../src/index.js';
import { arrangeCrossing, CROSSING_SQL, crossedCounts, crossingAttempts } from './crossing-writes.js';
import { type Harness, SERVICE, setup } from './helpers.js';

let h: Harness;
let plain: RestEngine;

beforeAll(async () => {
  h = await setup({ conflictRetries: 2 }, 4);
  await h.db.sql.unsafe(CROSSING_SQL);
  await h.engine.reloadSchema();
  plain = await createRestEngine({ sql: h.sql, schemas: ['public'], anonRole: 'anon', listen: false });
});
afterAll(async () => {
  await plain?.close();
  await h?.close();
});

const crossing = (engine: RestEngine, first: number, second: number) =>
  engine.handle({
    method: 'POST',
    path: '/rpc/cross_update',
    search: '',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ first, second }),
    claims: SERVICE,
  });

/** Both crossing writes at once, on rows made afresh. */
async function crossBoth(engine: RestEngine) {
  await arrangeCrossing(h.db.sql);
  return Promise.all([crossing(engine, 1, 2), crossing(engine, 2, 1)]);
}

describe('a write rolled back by a deadlock', () => {
  it('is run again and both writes commit once, with conflictRetries', async () => {
    const answers = await crossBoth(h.engine);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(await crossingAttempts(h.db.sql)).toBe(3);
    expect(await crossedCounts(h.db.sql)).toEqual([
      [1, 2],
      [2, 2],
    ]);
  });

  it('answers 500 40P01 for the one rolled back, without (as PostgREST)', async () => {
    const answers = await crossBoth(plain);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 500]);
    const refused = answers.find((a) => a.status === 500)!;
    expect(JSON.parse(refused.body as string).code).toBe('40P01');
    expect(await crossingAttempts(h.db.sql)).toBe(2);
    // The rolled-back write left nothing: each row has the committed write's 1.
    expect(await crossedCounts(h.db.sql)).toEqual([
      [1, 1],
      [2, 1],
    ]);
  });

  it('is not run again for an error that is not a conflict', async () => {
    await arrangeCrossing(h.db.sql);
    const r = await h.req('POST', '/rpc/cross_update', { claims: SERVICE, body: { first: 1, second: 1 } });
    expect(r.status).toBe(400);
    expect(r.json.code).toBe('23514');
    expect(await crossingAttempts(h.db.sql)).toBe(1);
  });

  it('refuses a retry count that is not a whole number', async () => {
    for (const conflictRetries of [-1, 1.5])
      await expect(
        createRestEngine({ sql: h.sql, schemas: ['public'], listen: false, checkRoles: false, conflictRetries }),
      ).rejects.toThrow(/conflictRetries/);
  });
});
