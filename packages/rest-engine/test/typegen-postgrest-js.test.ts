// Type generation against postgrest-js's own fixture schema: our output must equal, entry by entry, the types file
// the postgrest-js repository commits beside it (made by the Supabase CLI). typegen-type-tests.test.ts compiles
// postgrest-js's type tests with our output in its place. Both read an upstream checkout named by POSTGREST_JS_DIR.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateFixtureTypes, UPSTREAM, upstreamPresent, warnIfNoUpstream } from './postgrest-js-upstream.js';
import { typeEntries } from './typegen-entries.js';

warnIfNoUpstream('typegen-postgrest-js');

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

describe.skipIf(!upstreamPresent)('gen types typescript on the postgrest-js fixture', () => {
  let generated: string;
  beforeAll(async () => {
    generated = await generateFixtureTypes();
  });

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
