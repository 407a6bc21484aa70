// The upstream postgrest-js checkout the type-generation tests compare against (named by POSTGREST_JS_DIR), and
// loading its fixture schema into a test database.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '../../database/src/testing/index.js';
import { generateTypeScriptTypes } from '../src/index.js';

export const UPSTREAM = process.env.POSTGREST_JS_DIR;
const HOW_TO_GET_UPSTREAM =
  'set POSTGREST_JS_DIR to a checkout of supabase/supabase-js packages/core/postgrest-js, e.g. ' +
  '`git clone --depth 1 https://github.com/supabase/supabase-js /tmp/supabase-js` and ' +
  'POSTGREST_JS_DIR=/tmp/supabase-js/packages/core/postgrest-js';
export const upstreamPresent = UPSTREAM !== undefined && existsSync(join(UPSTREAM, 'test/types.generated.ts'));

/** The schemas of the fixture that upstream's committed types file describes. */
const FIXTURE_SCHEMAS = ['public', 'personal'];

/** Says, once per test file, why its tests are skipped and how to run them. */
export function warnIfNoUpstream(test: string): void {
  if (!upstreamPresent) console.warn(`${test}: skipped, no upstream checkout (${HOW_TO_GET_UPSTREAM})`);
}

/** Our generated types for upstream's fixture schema, loaded into a fresh database (dropped again before return). */
export async function generateFixtureTypes(): Promise<string> {
  const db = await createTestDatabase([]);
  try {
    await loadFixture(db, UPSTREAM!);
    return await generateTypeScriptTypes(db.sql, { schemas: FIXTURE_SCHEMAS });
  } finally {
    await db.drop();
  }
}

async function loadFixture(db: TestDatabase, dir: string): Promise<void> {
  const [{ postgis }] = await db.sql`select exists (select from pg_available_extensions where name = 'postgis')
    as postgis`;
  await db.sql.unsafe('create schema if not exists extensions; create schema if not exists graphql_public').simple();
  let fixture = readFileSync(join(dir, 'test/supabase/migrations/00000000000000_schema.sql'), 'utf8');
  if (!postgis) {
    // The embedded PostgreSQL has no PostGIS: a stand-in type of the same name (the CLI types both as unknown).
    await db.sql.unsafe('create domain extensions.geometry as point').simple();
    fixture = fixture
      .replace(/create extension if not exists postgis[^;]*;/i, '')
      .replace(/extensions\.geometry\([^)]*\)/g, 'extensions.geometry');
  }
  await db.sql.unsafe(fixture).simple();
}
