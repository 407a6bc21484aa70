// The run's figures: per spec file translated / passed / failed / not translated, the failures grouped by their
// first cause (which check, and the error code the engine answered), and a JSON file with every case (request,
// expected, actual) for whoever fixes the engine to list failures by cause.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { BASE_ENV } from './app-config.js';
import type { HttpRequest, HttpResponse, SuiteCase, UntranslatedCase } from './cases.js';
import type { CaseResult } from './run-cases.js';

export interface FileCounts {
  readonly file: string;
  translated: number;
  passed: number;
  failed: number;
  notTranslated: number;
}

const BODY_LIMIT = 8_000;

/** The error code of a JSON error body, if any (`{"code": "PGRST200", ...}`). */
function codeOf(res: HttpResponse | null): string | null {
  if (!res) return null;
  try {
    const v = JSON.parse(res.body.toString('utf8')) as { code?: unknown };
    return typeof v?.code === 'string' ? v.code : null;
  } catch {
    return null;
  }
}

/** A failure's group: the first failed check's kind, with the statuses and the engine's error code for a status. */
export function causeOf(r: CaseResult): string {
  const last = r.steps[r.steps.length - 1]!;
  if (last.cause === 'status') {
    const expected = last.expected[0]?.replace('status ', '') ?? '?';
    const code = codeOf(last.actual);
    return `status ${expected} -> ${last.actual?.status}${code ? ` ${code}` : ''}`;
  }
  return last.cause ?? 'unknown';
}

export function countByFile(files: readonly string[], cases: readonly SuiteCase[], results: readonly CaseResult[]) {
  const by = new Map<string, FileCounts>(
    files.map((f) => [f, { file: f, translated: 0, passed: 0, failed: 0, notTranslated: 0 }]),
  );
  for (const c of cases) if (c.kind === 'untranslated') by.get(c.file)!.notTranslated++;
  for (const r of results) {
    const n = by.get(r.case.file)!;
    n.translated++;
    if (r.passed) n.passed++;
    else n.failed++;
  }
  return [...by.values()];
}

export function printReport(
  counts: readonly FileCounts[],
  results: readonly CaseResult[],
  untranslated: readonly UntranslatedCase[],
): void {
  const w = Math.max(...counts.map((c) => c.file.length));
  console.log(`\n${'spec file'.padEnd(w)}  translated  passed  failed  not translated`);
  for (const c of counts)
    console.log(
      `${c.file.padEnd(w)}  ${String(c.translated).padStart(10)}  ${String(c.passed).padStart(6)}  ${String(c.failed).padStart(6)}  ${String(c.notTranslated).padStart(14)}`,
    );
  const causes = tally(results.filter((r) => !r.passed).map(causeOf));
  console.log('\nfailures by first cause:');
  for (const [cause, n] of causes.slice(0, 30)) console.log(`  ${String(n).padStart(4)}  ${cause}`);
  const reasons = tally(untranslated.map((u) => u.reason.replace(/^line \d+: /, '').slice(0, 100)));
  console.log('\nnot translated, by reason:');
  for (const [reason, n] of reasons.slice(0, 15)) console.log(`  ${String(n).padStart(4)}  ${reason}`);
}

function tally(keys: readonly string[]): [string, number][] {
  const m = new Map<string, number>();
  for (const k of keys) m.set(k, (m.get(k) ?? 0) + 1);
  return [...m].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

const requestJson = (r: HttpRequest | null) =>
  r && { method: r.method, path: r.path, headers: r.headers, body: r.body.toString('utf8').slice(0, BODY_LIMIT) };
const responseJson = (r: HttpResponse | null) =>
  r && { status: r.status, headers: r.headers, body: r.body.toString('utf8').slice(0, BODY_LIMIT) };

export function writeResults(
  path: string,
  meta: Record<string, unknown>,
  counts: readonly FileCounts[],
  results: readonly CaseResult[],
  untranslated: readonly UntranslatedCase[],
): void {
  const json = {
    ...meta,
    files: counts,
    cases: [
      ...results.map((r) => ({
        file: r.case.file,
        path: r.case.path,
        result: r.passed ? 'passed' : 'failed',
        cause: r.passed ? null : causeOf(r),
        // The configuration as the variables that differ from baseCfg's.
        config: Object.fromEntries(Object.entries(r.case.config.env).filter(([k, v]) => BASE_ENV[k] !== v)),
        steps: r.steps.map((s) => ({
          request: requestJson(s.request),
          expected: s.expected,
          actual: responseJson(s.actual),
          failures: s.failures,
        })),
      })),
      ...untranslated.map((u) => ({ file: u.file, path: u.path, result: 'not translated', reason: u.reason })),
    ],
  };
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(json, null, 1)}\n`);
}
