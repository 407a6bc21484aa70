// Type generation against postgrest-js's own fixture schema: our output must equal, entry by entry, the types file
// the postgrest-js repository commits beside it (made by the Supabase CLI), and postgrest-js's type tests must
// compile with our output in its place. Both read an upstream checkout named by POSTGREST_JS_DIR.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../database/src/testing/index.js';
import { generateTypeScriptTypes } from '../src/index.js';
import { typeEntries } from './typegen-entries.js';

const UPSTREAM = process.env.POSTGREST_JS_DIR;
const HOW =
  'set POSTGREST_JS_DIR to a checkout of supabase/supabase-js packages/core/postgrest-js, e.g. ' +
  '`git clone --depth 1 https://github.com/supabase/supabase-js /tmp/supabase-js` and ' +
  'POSTGREST_JS_DIR=/tmp/supabase-js/packages/core/postgrest-js';
const present = UPSTREAM !== undefined && existsSync(join(UPSTREAM, 'test/types.generated.ts'));
if (!present) console.warn(`typegen-postgrest-js: skipped, no upstream checkout (${HOW})`);

/**
 * Entries of the committed file that no generator prints, each with the reason (edited by hand upstream).
 * Anything else that differs fails the test.
 */
export const KNOWN_DIFFERENCES: Record<string, string> = {
  Json: "upstream replaced the CLI's Json union by `unknown` by hand; we print the CLI's union",
  'public.Functions.scalar_computed_count': 'added by hand upstream: no such function in the fixture schema',
  'public.Functions.scalar_computed_ids': 'added by hand upstream: no such function in the fixture schema',
  'public.Functions.echo_bigint_as_text': 'in the fixture schema but not in the committed file (not regenerated since)',
  'public.Functions.extract_jsonb_bigint_as_text':
    'in the fixture schema but not in the committed file (not regenerated since)',
};

export async function loadFixture(db: TestDatabase, dir: string): Promise<void> {
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

describe.skipIf(!present)('gen types typescript on the postgrest-js fixture', () => {
  let db: TestDatabase;
  let generated: string;
  beforeAll(async () => {
    db = await createTestDatabase([]);
    await loadFixture(db, UPSTREAM!);
    generated = await generateTypeScriptTypes(db.sql, { schemas: ['public', 'personal'] });
  });
  afterAll(() => db?.drop());

  it('equals the committed types file entry by entry, apart from the hand-made entries', () => {
    const theirs = typeEntries(readFileSync(join(UPSTREAM!, 'test/types.generated.ts'), 'utf8'));
    const ours = typeEntries(generated);
    const differing = [...new Set([...theirs.keys(), ...ours.keys()])].filter((k) => theirs.get(k) !== ours.get(k));
    const equal = theirs.size - differing.filter((k) => theirs.has(k)).length;
    console.log(`typegen: ${equal} of ${theirs.size} entries equal; differing: ${differing.join(', ') || 'none'}`);
    const unexpected = differing.filter((k) => !(k in KNOWN_DIFFERENCES));
    expect(unexpected.map((k) => ({ entry: k, ours: ours.get(k) }))).toEqual(
      unexpected.map((k) => ({ entry: k, ours: theirs.get(k) })),
    );
    expect(differing.sort()).toEqual(Object.keys(KNOWN_DIFFERENCES).sort());
  });
});
