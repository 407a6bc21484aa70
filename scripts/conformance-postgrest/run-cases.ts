// Runs the translated cases against the command: per spec file a fresh copy of the database and one engine
// process per configuration the file uses, the cases one after another in the suite's order, each case's steps in
// order until the first that fails (as hspec stops an example at its first failed expectation).
import type { HttpRequest, HttpResponse, TranslatedCase } from './cases.js';
import { type EngineProcess, startEngine } from './engine-process.js';
import { send } from './http-client.js';

export interface StepResult {
  readonly request: HttpRequest | null;
  /** The checks of the step, as text. */
  readonly expected: readonly string[];
  readonly actual: HttpResponse | null;
  /** What differed: one line per failed check (the first is the cause), or the transport error. */
  readonly failures: readonly string[];
  /** The kind of the first failed check (status, body, header:<name>, engine, transport). */
  readonly cause: string | null;
}

export interface CaseResult {
  readonly case: TranslatedCase;
  readonly passed: boolean;
  readonly steps: readonly StepResult[];
}

/** Groups in first-seen order. */
function groupBy<T>(items: readonly T[], key: (t: T) => string): T[][] {
  const groups = new Map<string, T[]>();
  for (const x of items) {
    const g = groups.get(key(x));
    if (g) g.push(x);
    else groups.set(key(x), [x]);
  }
  return [...groups.values()];
}

/** `databaseFor(file)`: the URL of the database a spec file's cases run on. */
export async function runCases(
  cases: readonly TranslatedCase[],
  databaseFor: (file: string) => string,
  onFile?: (file: string, count: number) => void,
): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  for (const fileCases of groupBy(cases, (c) => c.file)) {
    const file = fileCases[0]!.file;
    onFile?.(file, fileCases.length);
    const url = databaseFor(file);
    for (const group of groupBy(fileCases, (c) => c.config.key)) results.push(...(await runGroup(group, url)));
  }
  return results;
}

async function runGroup(group: readonly TranslatedCase[], dbUrl: string): Promise<CaseResult[]> {
  let engine: EngineProcess;
  try {
    engine = await startEngine({ ...group[0]!.config.env, PGRST_DB_URI: dbUrl });
  } catch (e) {
    const failure = `the command did not start: ${(e as Error).message.split('\n').slice(0, 4).join(' / ')}`;
    return group.map((c) => ({
      case: c,
      passed: false,
      steps: [{ request: null, expected: [], actual: null, failures: [failure], cause: 'engine' }],
    }));
  }
  const results: CaseResult[] = [];
  try {
    for (const c of group) results.push(await runCase(engine.url, c));
  } finally {
    await engine.stop();
  }
  return results;
}

async function runCase(base: string, c: TranslatedCase): Promise<CaseResult> {
  const bound = new Map<number, HttpResponse>();
  const steps: StepResult[] = [];
  for (const step of c.steps) {
    if (step.kind === 'check') {
      const res = bound.get(step.ref)!;
      const failure = step.check.test(res);
      steps.push({
        request: null,
        expected: [step.check.expected],
        actual: res,
        failures: failure ? [failure] : [],
        cause: failure ? step.check.kind : null,
      });
      if (failure) return { case: c, passed: false, steps };
      continue;
    }
    let res: HttpResponse;
    try {
      res = await send(base, step.request);
    } catch (e) {
      steps.push({
        request: step.request,
        expected: step.checks.map((k) => k.expected),
        actual: null,
        failures: [(e as Error).message],
        cause: 'transport',
      });
      return { case: c, passed: false, steps };
    }
    if (step.bind !== undefined) bound.set(step.bind, res);
    const failed = step.checks.flatMap((k) => {
      const f = k.test(res);
      return f ? [{ kind: k.kind, f }] : [];
    });
    steps.push({
      request: step.request,
      expected: step.checks.map((k) => k.expected),
      actual: res,
      failures: failed.map((x) => x.f),
      cause: failed[0]?.kind ?? null,
    });
    if (failed.length) return { case: c, passed: false, steps };
  }
  return { case: c, passed: true, steps };
}
