// `pnpm conformance postgrest [checkout]`: PostgREST's own HTTP test suite (test/spec, hspec-wai) against the
// `rest-engine` command. The suite is read from a checkout of PostgREST at the pinned commit (never kept here):
// its fixtures are loaded as its test setup loads them, its examples translated at run time
// (conformance-postgrest/translate.ts; what cannot be translated faithfully is counted, not guessed), and run
// against the command started with the PGRST_* variables of each spec group's configuration. Prints per spec file
// translated / passed / failed / not translated and ends with `N passed, N failed`; writes every case to
// CONFORMANCE_RESULTS (default .tmp/conformance/postgrest-results.json). Exit 0 when it ran; with
// CONFORMANCE_MAX_FAILURES=N, 1 when more than N cases failed. CONFORMANCE_ONLY=Name[,Name] runs only the spec files
// whose names contain one of the names.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TranslatedCase, UntranslatedCase } from './conformance-postgrest/cases.js';
import { startSuiteDatabase } from './conformance-postgrest/database.js';
import { countByFile, printReport, writeResults } from './conformance-postgrest/report.js';
import { runCases } from './conformance-postgrest/run-cases.js';
import { translateSuite } from './conformance-postgrest/translate.js';
import { howToGet, stageUpstream, type Upstream } from './conformance-upstream.js';

const HERE = dirname(fileURLToPath(import.meta.url));

const UPSTREAM: Upstream = {
  env: 'POSTGREST_SOURCE',
  repo: 'PostgREST/postgrest',
  commit: '4834678902681402a56c490f29947826e7ed5308',
  subdir: '',
};
// Where this workplace keeps a mirror of PostgREST, used when no checkout is named.
const MIRROR = '/work/.mirror/PostgREST+postgrest/repo';

export async function main(given = process.argv[3]): Promise<number> {
  const checkout = given ?? process.env[UPSTREAM.env] ?? (existsSync(MIRROR) ? MIRROR : undefined);
  if (!checkout) {
    console.error(howToGet(UPSTREAM, 'postgrest'));
    return 2;
  }
  const stage = mkdtempSync(join(tmpdir(), 'pgrst-suite-'));
  try {
    const root = stageUpstream(UPSTREAM, checkout, stage);
    const db = await startSuiteDatabase(root);
    try {
      const suite = translateSuite(root, db.version);
      // CONFORMANCE_ONLY=QuerySpec,RpcSpec runs only the spec files whose names contain one of the words.
      const only = (process.env.CONFORMANCE_ONLY ?? '').split(',').filter((w) => w !== '');
      const picked = (file: string) => only.length === 0 || only.some((w) => file.includes(w));
      const files = suite.files.filter(picked);
      const cases = suite.cases.filter((c) => picked(c.file));
      const translated = cases.filter((c): c is TranslatedCase & { kind: 'translated' } => c.kind === 'translated');
      const untranslated = cases.filter(
        (c): c is UntranslatedCase & { kind: 'untranslated' } => c.kind === 'untranslated',
      );
      console.log(
        `conformance postgrest: ${cases.length} examples in ${files.length} spec files, ${translated.length} translated; ` +
          `PostgreSQL ${db.version} + PostGIS on port ${db.cluster.port}`,
      );
      let n = 0;
      const results = await runCases(
        translated,
        () => db.copy(`spec_${++n}`),
        (file, count) => console.log(`  ${file}: ${count} cases`),
      );
      const counts = countByFile(files, cases, results);
      printReport(counts, results, untranslated);
      const passed = results.filter((r) => r.passed).length;
      const failed = results.length - passed;
      const out = process.env.CONFORMANCE_RESULTS ?? join(HERE, '../.tmp/conformance/postgrest-results.json');
      writeResults(
        out,
        {
          suite: 'PostgREST test/spec',
          commit: UPSTREAM.commit,
          date: new Date().toISOString(),
          passed,
          failed,
          notTranslated: untranslated.length,
        },
        counts,
        results,
        untranslated,
      );
      console.log(`\nresults: ${out}`);
      console.log(`${untranslated.length} not translated`);
      console.log(`${passed} passed, ${failed} failed`);
      const max = process.env.CONFORMANCE_MAX_FAILURES;
      return max !== undefined && failed > Number(max) ? 1 : 0;
    } finally {
      db.stop();
    }
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main(process.argv[2]).then(
    (code) => process.exit(code),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
