// Shared test setup: a database with the fixture schema and an engine connected as the authenticator.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { afterAll, beforeAll } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../database/src/testing/index.js';
import { compile } from '../src/compile/statement-compiler.js';
import { createRestEngine, type EngineRequest, type RestEngine, type RestEngineOptions } from '../src/index.js';
import { parse } from '../src/parse/request-parser.js';
import { plan } from '../src/plan/planner.js';

export const FIXTURE = [{ name: 'rest-engine-fixture', dir: join(dirname(fileURLToPath(import.meta.url)), 'fixture') }];

export interface Harness {
  db: TestDatabase;
  sql: postgres.Sql;
  engine: RestEngine;
  /** engine.handle with defaults; the body is parsed as JSON when it is JSON. */
  req(
    method: string,
    pathAndQuery: string,
    init?: { headers?: Record<string, string>; body?: unknown; claims?: Record<string, unknown> },
  ): Promise<{
    status: number;
    headers: Record<string, string>;
    text: string | null;
    json: any;
  }>;
  close(): Promise<void>;
}

export async function setup(
  opts: Partial<RestEngineOptions> = {},
  poolSize = 4,
  fixture: typeof FIXTURE = FIXTURE,
): Promise<Harness> {
  const db = await createTestDatabase(fixture);
  const sql = postgres(db.requestUrl, { max: poolSize, onnotice: () => {} });
  const engine = await createRestEngine({ sql, schemas: ['public'], anonRole: 'anon', ...opts });
  return {
    db,
    sql,
    engine,
    async req(method, pathAndQuery, init = {}) {
      const [path, search = ''] = pathAndQuery.split(/\?(.*)/s);
      const r: EngineRequest = {
        method,
        path,
        search,
        headers: Object.fromEntries(Object.entries(init.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v])),
        body:
          init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
        claims: init.claims,
      };
      const res = await engine.handle(r);
      let json: any;
      try {
        json = res.body ? JSON.parse(res.body) : null;
      } catch {
        json = undefined;
      }
      return { status: res.status, headers: res.headers, text: res.body, json };
    },
    async close() {
      await engine.close();
      await sql.end();
      await db.drop();
    },
  };
}

export const USER_A = { sub: 'user-a', role: 'authenticated' };
export const USER_B = { sub: 'user-b', role: 'authenticated' };
export const SERVICE = { role: 'service_role' };

/** Planner options of the golden cases (the harness's engine is set up the same way). */
export const GOLDEN_OPTIONS = {
  schemas: ['public'],
  maxRows: null,
  aggregatesEnabled: true,
  allowUnfilteredWrites: false,
  txOverridable: true,
  planEnabled: true,
};

/**
 * One golden case: the exact statement and parameters the stages produce, and what the engine answers when it
 * runs them on Postgres as an authenticated user (writes rolled back): status, Content-Range and rows.
 */
export async function goldenCase(
  h: Harness,
  method: string,
  pathQuery: string,
  headers: Record<string, string> = {},
  body?: unknown,
) {
  const [path, search = ''] = pathQuery.split(/\?(.*)/s);
  const input = { method, path, search, headers, body: body === undefined ? undefined : JSON.stringify(body) };
  const { main } = compile(plan(parse(input), h.engine.schemaCache, GOLDEN_OPTIONS), null);
  const res = await h.req(method, pathQuery, {
    headers: { ...headers, prefer: [headers.prefer, 'tx=rollback'].filter(Boolean).join(',') },
    body,
    claims: USER_A,
  });
  const range = res.headers['content-range'] ?? null;
  return { sql: main.sql, params: main.params, status: res.status, range, rows: res.json };
}

/**
 * A golden test file's harness, set up before its tests and closed after them, with the golden case bound to it.
 * `harness()` is the harness itself once set up.
 */
export function goldenSuite(opts: Partial<RestEngineOptions>) {
  let h: Harness | undefined;
  beforeAll(async () => {
    h = await setup(opts);
  });
  afterAll(async () => {
    await h?.close();
  });
  const harness = (): Harness => {
    if (!h) throw new Error('the golden harness is used before its setup');
    return h;
  };
  return {
    harness,
    golden: (method: string, pathQuery: string, headers: Record<string, string> = {}, body?: unknown) =>
      goldenCase(harness(), method, pathQuery, headers, body),
  };
}

/** The main fixture plus the shapes of PostgREST's own test suite (test/pgrst-fixture). */
export const PGRST_FIXTURE = [
  ...FIXTURE,
  { name: 'rest-engine-pgrst-shapes', dir: join(dirname(fileURLToPath(import.meta.url)), 'pgrst-fixture') },
];

/** The main fixture plus shapes of PostgREST's own test suite used by the tests of its groups (test/suite-fixture). */
export const SUITE_FIXTURE = [
  ...FIXTURE,
  { name: 'rest-engine-suite-shapes', dir: join(dirname(fileURLToPath(import.meta.url)), 'suite-fixture') },
];
