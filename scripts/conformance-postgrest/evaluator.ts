// Evaluates the parsed spec files: lazy bindings (a `let` only fails the example that uses it), application,
// operators, do blocks that collect either spec items (describe/it) or test steps (requests and checks). What it
// cannot evaluate faithfully throws Untranslatable; `it` catches that and records the example as not translated.
import type { Step } from './cases.js';
import { headerIs } from './checks.js';
import type { Decl, Expr, Stmt } from './hs-ast.js';
import { JsonQuoteError, parseJsonQuote } from './json-quote.js';
import { respond, shouldBe, shouldContain, shouldSatisfy, toMatcher } from './steps.js';
import {
  type SpecItem,
  type Thunk,
  Untranslatable,
  type Val,
  bytesOf,
  describe,
  fn,
  ready,
  textOf,
  unit,
} from './values.js';

export class Env {
  private readonly vars = new Map<string, Thunk>();
  /** `fallback`: names recognised by their spelling (hContentType, pgVersion150) at the root. */
  constructor(
    private readonly parent: Env | null,
    private readonly fallback?: (name: string) => Thunk | undefined,
  ) {}

  set(name: string, t: Thunk): void {
    this.vars.set(name, t);
  }

  lookup(name: string): Thunk | undefined {
    return this.vars.get(name) ?? this.parent?.lookup(name) ?? this.fallback?.(name);
  }
}

/** A lazily evaluated expression; `expr` stays reachable to count the examples inside one that fails. */
export class ExprThunk implements Thunk {
  private value: Val | null = null;
  private error: unknown = null;
  constructor(
    readonly expr: Expr,
    private readonly env: Env,
    private readonly ev: Evaluator,
  ) {}

  force(): Val {
    if (this.value) return this.value;
    if (this.error) throw this.error;
    try {
      this.value = this.ev.eval(this.expr, this.env);
      return this.value;
    } catch (e) {
      this.error = e;
      throw e;
    }
  }
}

export class Evaluator {
  private refs = 0;

  thunk(e: Expr, env: Env): ExprThunk {
    return new ExprThunk(e, env, this);
  }

  /** Binds declarations in a new scope; they may refer to each other. */
  bind(decls: readonly Decl[], env: Env): Env {
    const scope = new Env(env);
    for (const d of decls) {
      if (d.k === 'bad') continue;
      const body = d.params.reduceRight<Expr>((b, p) => ({ k: 'lam', params: [p], body: b }), d.body);
      scope.set(d.name, this.thunk(body, scope));
    }
    return scope;
  }

  eval(e: Expr, env: Env): Val {
    switch (e.k) {
      case 'str':
        return { t: 'str', v: e.v };
      case 'num':
        return { t: 'num', v: e.v };
      case 'qq':
        return quasiQuote(e.quoter, e.text);
      case 'var': {
        const t = env.lookup(e.name);
        if (!t) throw new Untranslatable(`unknown name ${e.name}`);
        return t.force();
      }
      case 'con':
        return constructorValue(e.name);
      case 'app':
        return this.apply(this.eval(e.f, env), this.thunk(e.a, env));
      case 'op':
        return this.operator(e.op, e.l, e.r, env);
      case 'section':
        throw new Untranslatable(`operator section (${e.op})`);
      case 'tuple':
        return e.items.length === 0 ? unit : { t: 'tuple', items: e.items.map((x) => this.eval(x, env)) };
      case 'list':
        return { t: 'list', items: e.items.map((x) => this.eval(x, env)) };
      case 'rec':
        return this.record(this.eval(e.e, env), e.fields, env);
      case 'let':
        return this.eval(e.body, this.bind(e.decls, env));
      case 'if': {
        const c = this.eval(e.c, env);
        if (c.t !== 'bool') throw new Untranslatable(`if on ${describe(c)}`);
        return this.eval(c.v ? e.t : e.e, env);
      }
      case 'lam': {
        const [p, ...rest] = e.params;
        return {
          t: 'fn',
          name: 'lambda',
          apply: (a) => {
            const scope = new Env(env);
            scope.set(p!, a);
            return this.eval(rest.length ? { k: 'lam', params: rest, body: e.body } : e.body, scope);
          },
        };
      }
      case 'do':
        return this.doBlock(e.stmts, env);
    }
  }

  apply(f: Val, a: Thunk): Val {
    if (f.t === 'fn') return f.apply(a);
    if (f.t === 'con') return { t: 'con', name: f.name, args: [...f.args, a.force()] };
    throw new Untranslatable(`${describe(f)} applied as a function`);
  }

  private operator(op: string, l: Expr, r: Expr, env: Env): Val {
    const L = () => this.eval(l, env);
    const R = () => this.eval(r, env);
    switch (op) {
      case '$':
        return this.apply(L(), this.thunk(r, env));
      case '.': {
        const f = L();
        const g = R();
        return fn('.', 1, ([x]) => this.apply(f, { force: () => this.apply(g, x!) }));
      }
      case '<>':
      case '++':
        return concat(L(), R());
      case ':': {
        const tail = R();
        if (tail.t !== 'list') throw new Untranslatable(': onto a non-list');
        return { t: 'list', items: [L(), ...tail.items] };
      }
      case '<:>':
        return { t: 'check', check: headerIs(textOf(L()), textOf(R())) };
      case 'shouldRespondWith':
        return respond(L(), R());
      case 'shouldBe':
        return shouldBe(L(), R());
      case 'shouldSatisfy':
        return shouldSatisfy(L(), R());
      case 'shouldContain':
        return shouldContain(L(), R());
      case '<$>': {
        const f = L();
        const x = R();
        if (f.t === 'fn' && x.t === 'request' && ACCESSORS[f.name])
          return { t: 'request', request: x.request, part: ACCESSORS[f.name] };
        throw new Untranslatable(`<$> of ${describe(f)}`);
      }
      case '==':
      case '/=':
      case '<':
      case '<=':
      case '>':
      case '>=':
        return { t: 'bool', v: compare(op, L(), R()) };
      case '&&':
      case '||': {
        const a = L();
        if (a.t !== 'bool') throw new Untranslatable(`${op} on ${describe(a)}`);
        if (op === '&&' ? !a.v : a.v) return a;
        return R();
      }
      default: {
        // `a \`f\` b` is `f a b`.
        const f = env.lookup(op);
        if (!f) throw new Untranslatable(`operator ${op}`);
        return this.apply(this.apply(f.force(), this.thunk(l, env)), this.thunk(r, env));
      }
    }
  }

  private record(base: Val, fields: readonly (readonly [string, Expr])[], env: Env): Val {
    if (base.t === 'cfg') {
      const next: Record<string, Thunk> = { ...base.fields };
      for (const [name, e] of fields) next[name] = this.thunk(e, env);
      return { t: 'cfg', fields: next };
    }
    if (base.t === 'con' && base.name === 'Status') {
      // http-types compares a Status by its code only.
      const code = fields.find(([n]) => n === 'statusCode');
      if (!code) throw new Untranslatable('a Status without statusCode');
      return this.eval(code[1], env);
    }
    // Record construction `ResponseMatcher { ... }` starts from hspec-wai's defaults.
    let m = base.t === 'con' && base.name === 'ResponseMatcher' ? toMatcher({ t: 'num', v: 200 }) : toMatcher(base);
    for (const [name, e] of fields) {
      const v = this.eval(e, env);
      if (name === 'matchStatus') m = { ...m, status: numberOf(v) };
      else if (name === 'matchHeaders') {
        const checks = (v.t === 'list' ? v.items : []).map((c) => {
          if (c.t !== 'check') throw new Untranslatable(`header matcher ${describe(c)}`);
          return c.check;
        });
        if (v.t !== 'list') throw new Untranslatable('matchHeaders that is not a list');
        m = { ...m, headers: checks };
      } else if (name === 'matchBody') {
        if (v.t === 'con' && v.name === 'MatchBody') {
          // `MatchBody (\_ _ -> Nothing)` accepts any body: known by applying it, anything else is not read.
          const f = v.args[0];
          const r = f?.t === 'fn' ? this.apply(this.apply(f, ready(unit)), ready(unit)) : null;
          if (r?.t === 'con' && r.name === 'Nothing') {
            m = { ...m, body: null };
            continue;
          }
          throw new Untranslatable('a MatchBody function');
        }
        if (v.t !== 'check') throw new Untranslatable(`matchBody ${describe(v)}`);
        m = { ...m, body: v.check };
      } else throw new Untranslatable(`record field ${name}`);
    }
    return m;
  }

  private doBlock(stmts: readonly Stmt[], env: Env): Val {
    let scope = env;
    const items: SpecItem[] = [];
    const steps: Step[] = [];
    let last: Val = unit;
    for (const s of stmts) {
      if (s.k === 'bad') {
        const names = examplesInTokens(s.tokens.map((t) => ({ kind: t.kind, text: t.text })));
        if (names.length === 0) throw new Untranslatable(s.reason);
        for (const n of names) items.push({ kind: 'skip', path: [n], reason: `unparsed: ${s.reason}` });
        continue;
      }
      if (s.k === 'let') {
        scope = this.bind(s.decls, scope);
        continue;
      }
      if (s.k === 'bind') {
        const v = this.eval(s.e, scope);
        if (v.t !== 'request') throw new Untranslatable(`binding ${s.name} to ${describe(v)}`);
        const ref = ++this.refs;
        steps.push({ kind: 'respond', request: v.request, checks: [], bind: ref });
        const part = v.part ?? 'all';
        const bound = new Env(scope);
        bound.set(s.name, { force: () => ({ t: 'response', ref, part }) });
        scope = bound;
        continue;
      }
      last = this.eval(s.e, scope);
      if (last.t === 'spec') items.push(...last.items);
      else if (last.t === 'steps') steps.push(...last.steps);
      else if (last.t === 'request') steps.push({ kind: 'respond', request: last.request, checks: [] });
    }
    if (items.length && steps.length) throw new Untranslatable('examples and requests in one do block');
    if (items.length) return { t: 'spec', items };
    if (steps.length) return { t: 'steps', steps };
    return last;
  }
}

const ACCESSORS: Record<string, 'body' | 'headers' | 'status'> = {
  simpleBody: 'body',
  simpleHeaders: 'headers',
  simpleStatus: 'status',
};

function quasiQuote(quoter: string, text: string): Val {
  if (quoter === 'json' || quoter === 'aesonQQ') {
    try {
      return { t: 'json', v: parseJsonQuote(text) };
    } catch (e) {
      if (e instanceof JsonQuoteError) throw new Untranslatable(`[${quoter}|...|]: ${e.message}`);
      throw e;
    }
  }
  if (quoter === 'str') return { t: 'str', v: unpipe(text) };
  throw new Untranslatable(`quasi-quoter ${quoter}`);
}

/**
 * Text.Heredoc's `str`: every line after the first starts after its first `|` (the left edge), lines are joined
 * with a line feed. The first line is kept as it is, also when empty (a quote opened at the end of a line starts
 * with a line feed: CustomMediaSpec's welcome.html page, whose Content-Length counts it).
 */
export function unpipe(text: string): string {
  const lines = text.split('\n');
  // The last line's edge is the `|` of the closing `|]`.
  if (lines.length > 1 && /^\s*$/.test(lines[lines.length - 1]!)) lines[lines.length - 1] = '|';
  const rest = lines.slice(1).map((l) => {
    const m = /^\s*\|/.exec(l);
    if (!m) throw new Untranslatable('[str|...|] line without its | edge');
    return l.slice(m[0].length);
  });
  return [lines[0]!, ...rest].join('\n');
}

function constructorValue(name: string): Val {
  if (name === 'True' || name === 'False') return { t: 'bool', v: name === 'True' };
  return { t: 'con', name, args: [] };
}

function concat(a: Val, b: Val): Val {
  if (a.t === 'str' && b.t === 'str') {
    if (a.bytes || b.bytes) return { t: 'str', v: a.v + b.v, bytes: Buffer.concat([bytesOf(a), bytesOf(b)]) };
    return { t: 'str', v: a.v + b.v };
  }
  if (a.t === 'list' && b.t === 'list') return { t: 'list', items: [...a.items, ...b.items] };
  throw new Untranslatable(`<> of ${describe(a)} and ${describe(b)}`);
}

function numberOf(v: Val): number {
  if (v.t === 'num') return v.v;
  throw new Untranslatable(`a status that is ${describe(v)}`);
}

function compare(op: string, a: Val, b: Val): boolean {
  if (a.t !== 'num' || b.t !== 'num') {
    if (op === '==' && a.t === 'str' && b.t === 'str') return a.v === b.v;
    throw new Untranslatable(`${op} on ${describe(a)}`);
  }
  const x = a.v;
  const y = b.v;
  return { '==': x === y, '/=': x !== y, '<': x < y, '<=': x <= y, '>': x > y, '>=': x >= y }[op]!;
}

/** The descriptions of the examples (`it "..."`) in an expression, for counting what a failed evaluation loses. */
export function examplesIn(e: Expr | Stmt | Decl): string[] {
  const out: string[] = [];
  const walk = (x: unknown): void => {
    if (!x || typeof x !== 'object') return;
    const node = x as { k?: string; f?: Expr; a?: Expr; tokens?: { kind: string; text: string }[] };
    if (node.k === 'bad' && node.tokens) {
      out.push(...examplesInTokens(node.tokens));
      return;
    }
    if (node.k === 'app' && node.f?.k === 'var' && EXAMPLE.has(node.f.name) && node.a?.k === 'str') {
      out.push(node.a.v);
      return;
    }
    for (const v of Object.values(node)) {
      if (Array.isArray(v)) v.forEach(walk);
      else walk(v);
    }
  };
  walk(e);
  return out;
}

const EXAMPLE = new Set(['it', 'specify']);

function examplesInTokens(tokens: readonly { kind: string; text: string }[]): string[] {
  const out: string[] = [];
  tokens.forEach((t, i) => {
    if (t.kind === 'var' && EXAMPLE.has(t.text) && tokens[i + 1]?.kind === 'str') out.push(tokens[i + 1]!.text);
  });
  return out;
}
