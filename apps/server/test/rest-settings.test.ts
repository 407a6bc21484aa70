// The rest-engine settings the server exposes: plan output (REST_PLAN_ENABLED), PostgREST's extra search path
// (REST_EXTRA_SEARCH_PATH), with which functions of an extension's own schema resolve as they do on Supabase, and
// `Prefer: tx=rollback` (REST_TX_ROLLBACK_ALLOWED); and the retry of a write rolled back by a deadlock, which the
// server always asks of the engine.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDatabase } from '@auction-ops/database/testing';
import {
  arrangeCrossing,
  CROSSING_SQL,
  crossedCounts,
  crossingAttempts,
} from '../../../packages/rest-engine/test/crossing-writes.js';
import { startTestServer, type TestServer } from './support/test-server.js';

/** An "extension" in its own schema, and a public RPC that calls it unqualified (as PostGIS's functions are). */
async function installExtensionSchema({ db }: { db: TestDatabase }): Promise<void> {
  await db.sql.unsafe(`
    set check_function_bodies = off; -- the body resolves double_it on the caller's search_path, not now
    create schema geo_tools;
    grant usage on schema geo_tools to anon, authenticated, service_role;
    create function geo_tools.double_it(n int) returns int language sql immutable as 'select n * 2';
    create function public.call_extension(n int) returns int language sql stable as 'select double_it(n)';
    grant execute on function public.call_extension(int) to anon;
  `);
}

let defaults: TestServer;
let configured: TestServer;
beforeAll(async () => {
  [defaults, configured] = await Promise.all([
    startTestServer(
      {},
      {
        beforeStart: async (t) => {
          await installExtensionSchema(t);
          await t.db.sql.unsafe(CROSSING_SQL);
        },
      },
    ),
    startTestServer(
      { REST_PLAN_ENABLED: 'true', REST_EXTRA_SEARCH_PATH: 'public, geo_tools', REST_TX_ROLLBACK_ALLOWED: 'true' },
      { beforeStart: installExtensionSchema },
    ),
  ]);
});
afterAll(async () => {
  await Promise.all([defaults?.stop(), configured?.stop()]);
});

function get(t: TestServer, path: string, headers: Record<string, string> = {}) {
  return fetch(new URL(`/rest/v1${path}`, t.url), {
    headers: { apikey: t.anonKey, authorization: `Bearer ${t.serviceRoleKey}`, ...headers },
  });
}

describe('REST_PLAN_ENABLED', () => {
  it('is off by default: a plan is not an available media type', async () => {
    const res = await get(defaults, '/auctions?select=id', { accept: 'application/vnd.pgrst.plan+json' });
    expect(res.status).toBe(406);
    expect(await res.json()).toMatchObject({ code: 'PGRST107' });
  });

  it('on, answers with the statement plan', async () => {
    const res = await get(configured, '/auctions?select=id', { accept: 'application/vnd.pgrst.plan+json' });
    expect(res.status).toBe(200);
    const [explained] = (await res.json()) as Array<{ Plan: { 'Node Type': string } }>;
    expect(explained.Plan['Node Type']).toBeTypeOf('string');
  });
});

describe('REST_EXTRA_SEARCH_PATH', () => {
  it('by default (public) an extension schema is not on the path', async () => {
    const { data, error } = await defaults.client().rpc('call_extension', { n: 21 });
    expect(data).toBeNull();
    expect(error).toMatchObject({ code: '42883' });
  });

  it('puts the named schemas after the exposed one', async () => {
    const { data, error } = await configured.client().rpc('call_extension', { n: 21 });
    expect(error).toBeNull();
    expect(data).toBe(42);
  });
});

describe('REST_TX_ROLLBACK_ALLOWED', () => {
  /** Inserts a super admin row with `Prefer: tx=rollback`; answers the status and whether the row is there after. */
  async function insertRolledBack(t: TestServer): Promise<[number, boolean]> {
    const [user] = await t.db.sql`insert into auth.users (id, email) values (gen_random_uuid(), ${`tx-${t.url}@x.test`})
      returning id`;
    const { status } = await t.client(t.serviceRoleKey).from('super_admins').insert({ user_id: user!.id }).rollback();
    const kept = await t.db.sql`select 1 from public.super_admins where user_id = ${user!.id}`;
    return [status, kept.length === 1];
  }

  it('off by default: the preference is ignored and the insert commits', async () => {
    expect(await insertRolledBack(defaults)).toEqual([201, true]);
  });

  it('on, the request answers as it would and keeps nothing', async () => {
    expect(await insertRolledBack(configured)).toEqual([201, false]);
  });
});

describe('a write rolled back by a deadlock', () => {
  it('is run again: both crossing writes are answered 200 and commit once each', async () => {
    await arrangeCrossing(defaults.db.sql);
    const cross = (first: number, second: number) =>
      fetch(new URL('/rest/v1/rpc/cross_update', defaults.url), {
        method: 'POST',
        headers: {
          apikey: defaults.serviceRoleKey,
          authorization: `Bearer ${defaults.serviceRoleKey}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ first, second }),
      });
    const answers = await Promise.all([cross(1, 2), cross(2, 1)]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    // Three attempts: PostgreSQL rolled one back and the server ran it again.
    expect(await crossingAttempts(defaults.db.sql)).toBe(3);
    expect(await crossedCounts(defaults.db.sql)).toEqual([
      [1, 2],
      [2, 2],
    ]);
  });
});
