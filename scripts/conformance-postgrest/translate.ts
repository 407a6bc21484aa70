// Translates PostgREST's test/spec at run time: Main.hs names the spec functions that run (and the PostgreSQL
// version they get), each module's function is evaluated with `withConfig` as hspec runs it, and every example
// becomes a case with its steps and the PGRST_* configuration of its group, or an untranslated case with the reason.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runConfig } from './app-config.js';
import { rootEnv, specOf } from './builtins.js';
import type { SuiteCase } from './cases.js';
import { type Env, Evaluator, type ExprThunk } from './evaluator.js';
import { lex } from './hs-lexer.js';
import type { Expr } from './hs-ast.js';
import { parseModule } from './hs-parser.js';
import { type Thunk, Untranslatable, type Val, fn, ready } from './values.js';

/** A spec function Main.hs runs: `("Feature.Query.QuerySpec", Feature.Query.QuerySpec.spec actualPgVersion)`. */
export interface SpecEntry {
  readonly label: string;
  readonly module: string;
  readonly fn: string;
  /** Argument names before the withConfig combinator (actualPgVersion). */
  readonly args: readonly string[];
}

const head = (e: Expr): { name: string; args: Expr[] } | null => {
  const args: Expr[] = [];
  let x = e;
  while (x.k === 'app') {
    args.unshift(x.a);
    x = x.f;
  }
  return x.k === 'var' ? { name: x.name, args } : null;
};

export function specEntries(mainHs: string): SpecEntry[] {
  const out: SpecEntry[] = [];
  const add = (label: string, e: Expr) => {
    const h = head(e);
    if (!h?.name.startsWith('Feature.')) return;
    const dot = h.name.lastIndexOf('.');
    const args = h.args.flatMap((a) => (a.k === 'var' && !a.name.startsWith('withConfig') ? [a.name] : []));
    out.push({ label, module: h.name.slice(0, dot), fn: h.name.slice(dot + 1), args });
  };
  const walk = (x: unknown): void => {
    if (!x || typeof x !== 'object') return;
    const n = x as Expr;
    if (n.k === 'tuple' && n.items.length === 2 && n.items[0]!.k === 'str') add(n.items[0]!.v, n.items[1]!);
    if (n.k === 'op' && n.op === '$' && n.l.k === 'app' && n.l.f.k === 'var' && n.l.f.name === 'describe') {
      if (n.l.a.k === 'str') add(n.l.a.v, n.r);
    }
    for (const v of Object.values(n)) {
      if (Array.isArray(v)) v.forEach(walk);
      else walk(v);
    }
  };
  walk(parseModule(lex(mainHs)));
  return out;
}

/** `withConfig cfg spec`: the spec's examples run under cfg (the innermost withConfig wins). */
const withConfig: Val = fn('withConfig', 2, ([cfg, body]) =>
  specOf(body!, (i) => (i.kind === 'it' && !i.config ? { ...i, config: cfg!.force() } : i)),
);

export interface Translation {
  readonly cases: SuiteCase[];
  /** Spec files in Main.hs's order, as `Feature/Query/QuerySpec.hs`. */
  readonly files: string[];
}

/** `root`: a checkout of PostgREST; `pgVersion`: server_version_num of the database the suite will run on. */
export function translateSuite(root: string, pgVersion: number): Translation {
  const spec = join(root, 'test/spec');
  const entries = specEntries(readFileSync(join(spec, 'Main.hs'), 'utf8'));
  const modules = new Map<string, Env | Error>();
  const cases: SuiteCase[] = [];
  const files: string[] = [];
  for (const entry of entries) {
    const file = `${entry.module.replace(/\./g, '/')}.hs`;
    if (!files.includes(file)) files.push(file);
    let env = modules.get(entry.module);
    if (!env) {
      env = moduleEnv(() => readFileSync(join(spec, file), 'utf8'), join(spec, 'fixtures'));
      modules.set(entry.module, env);
    }
    if (env instanceof Error) {
      cases.push({ kind: 'untranslated', file, path: [entry.label], reason: `file not parsed: ${env.message}` });
      continue;
    }
    cases.push(...evaluateEntry(entry, env, file, pgVersion));
  }
  return { cases, files };
}

function moduleEnv(source: () => string, fixtures: string): Env | Error {
  try {
    return new Evaluator().bind(parseModule(lex(source())), rootEnv(fixtures));
  } catch (e) {
    return e as Error;
  }
}

/** One spec module's source, run as Main.hs runs `entry` (for tests of the translator without a checkout). */
export function translateModule(source: string, entry: SpecEntry, pgVersion: number, fixtures = '.'): SuiteCase[] {
  const file = `${entry.module.replace(/\./g, '/')}.hs`;
  const env = moduleEnv(() => source, fixtures);
  if (env instanceof Error)
    return [{ kind: 'untranslated', file, path: [entry.label], reason: `file not parsed: ${env.message}` }];
  return evaluateEntry(entry, env, file, pgVersion);
}

function evaluateEntry(entry: SpecEntry, env: Env, file: string, pgVersion: number): SuiteCase[] {
  const f = env.lookup(entry.fn);
  if (!f) return [{ kind: 'untranslated', file, path: [entry.label], reason: `no function ${entry.fn}` }];
  const args: Thunk[] = entry.args.map((a) => {
    if (a !== 'actualPgVersion') throw new Untranslatable(`argument ${a}`);
    return ready({ t: 'num', v: pgVersion });
  });
  const body: Thunk = {
    force: () => args.reduce<Val>((acc, a) => apply(acc, a), f.force()),
  };
  // The function's own expression goes along, so that a failure before any example still counts its examples.
  const whole = { force: () => apply(body.force(), ready(withConfig)), expr: (f as ExprThunk).expr };
  const spec = specOf(whole, (i) => i);
  if (spec.t !== 'spec') return [];
  return spec.items.map((item): SuiteCase => {
    const path = [entry.label, ...item.path];
    if (item.kind === 'skip') return { kind: 'untranslated', file, path, reason: item.reason };
    if (item.config?.t !== 'cfg') return { kind: 'untranslated', file, path, reason: 'an example outside withConfig' };
    try {
      const config = runConfig(item.config.fields);
      if (config.unmapped.length)
        return {
          kind: 'untranslated',
          file,
          path,
          reason: `setting without a PGRST_ variable: ${config.unmapped.join(', ')}`,
        };
      return { kind: 'translated', file, path, config, steps: item.steps };
    } catch (e) {
      return { kind: 'untranslated', file, path, reason: (e as Error).message };
    }
  });
}

function apply(f: Val, a: Thunk): Val {
  if (f.t !== 'fn') throw new Untranslatable('a spec that is not a function');
  return f.apply(a);
}
