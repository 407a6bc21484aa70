// Runs an upstream Jest suite (staged from a checkout) under Vitest without editing it: Jest's globals (`test`,
// `expect`, `jest.fn`) map onto Vitest's, the hard-coded server URLs are rewritten as the files load, and files run one at a time in name order
// (the suites share one database and depend on that order, as their Jest test sequencer says).
import { join } from 'node:path';
import { BaseSequencer, startVitest, type TestSpecification } from 'vitest/node';

type Plugin = NonNullable<NonNullable<Parameters<typeof startVitest>[3]>['plugins']>[number];

class ByName extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return [...files].sort((a, b) => a.moduleId.localeCompare(b.moduleId));
  }
}

function rewriteUrls(pairs: readonly (readonly [string, string])[], testDir: string): Plugin {
  return {
    name: 'conformance-urls',
    enforce: 'pre',
    transform(code: string, id: string) {
      if (!id.includes(testDir)) return null;
      let out = code;
      for (const [u, base] of pairs) out = out.split(u).join(base);
      return out === code ? null : { code: out, map: null };
    },
  };
}

export interface Counts {
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
  /** Tests that could not run under this harness (SuiteLayout.harnessFailure). */
  readonly harness: number;
}

const SHIMS = join(import.meta.dirname, 'conformance-node-shims.ts');

/**
 * `jest`: the Jest major version the suite's inline snapshots were written with. Jest 29 changed the snapshot
 * format's defaults (no `Object {` / `Array [` prefixes, no escaped quotes); Vitest's are Jest 29's.
 */
/** Where a suite differs from the postgrest-js ones: its test files, test folder and module aliases. */
export interface SuiteLayout {
  readonly include?: string[];
  /** Only files under this path have their URLs rewritten. */
  readonly testDir?: string;
  readonly alias?: Record<string, string>;
  /** Where a test file's snapshots are read from (a suite's Jest snapshots translated for Vitest). */
  readonly resolveSnapshotPath?: (testPath: string, extension: string) => string;
  /** Failures of the harness, not of the server under test (e.g. Jest-only module mocking): counted apart. */
  readonly harnessFailure?: (message: string) => boolean;
  /** Further URLs rewritten each to its own server (suites that talk to several servers at once). */
  readonly rewrites?: Readonly<Record<string, string>>;
  /** Runs only the tests whose full name matches (Vitest's `-t`), to re-run a few failures. */
  readonly testNamePattern?: string;
}

export async function runVitest(
  root: string,
  urls: readonly string[],
  base: string,
  jest: 28 | 29,
  layout: SuiteLayout = {},
): Promise<Counts> {
  const vitest = await startVitest(
    'test',
    [],
    {
      root,
      config: false,
      watch: false,
      // With translated snapshots, never write any: a missing or mismatched one is a failure. (The postgrest-js
      // suites keep their former setting, under which their measured figures were taken.)
      update: layout.resolveSnapshotPath ? 'none' : false,
      resolveSnapshotPath: layout.resolveSnapshotPath,
      globals: true,
      include: layout.include ?? ['test/**/*.test.ts'],
      testNamePattern: layout.testNamePattern,
      // The PostgREST 12 compatibility tests need their own PostgREST 12 set-up.
      exclude: ['test/v12/**', '**/node_modules/**'],
      setupFiles: [join(import.meta.dirname, 'conformance-jest-globals.ts')],
      fileParallelism: false,
      sequence: { sequencer: ByName },
      testTimeout: 30_000,
      snapshotFormat: jest === 28 ? { printBasicPrototype: true, escapeString: true } : {},
      reporters: [process.env.CONFORMANCE_REPORTER ?? 'dot'],
      pool: 'forks',
    },
    {
      plugins: [
        rewriteUrls(
          [...urls.map((u) => [u, base] as const), ...Object.entries(layout.rewrites ?? {})],
          layout.testDir ?? join(root, 'test/'),
        ),
      ],
      resolve: { alias: { '@supabase/node-fetch': SHIMS, 'node-abort-controller': SHIMS, ...layout.alias } },
    },
  );
  let passed = 0,
    failed = 0,
    skipped = 0,
    harness = 0;
  for (const mod of vitest.state.getTestModules()) {
    for (const t of mod.children.allTests()) {
      const state = t.result().state;
      const messages = (t.result().errors ?? []).map((e) => e.message ?? '');
      if (state === 'passed') passed++;
      else if (state === 'failed' && messages.some((m) => layout.harnessFailure?.(m))) harness++;
      else if (state === 'failed') failed++;
      else skipped++;
    }
    // A file that fails to load has no tests to count: count it once so that it cannot go unseen.
    if (mod.state() === 'failed' && [...mod.children.allTests()].length === 0) failed++;
  }
  await vitest.close();
  return { passed, failed, skipped, harness };
}
