// A parser of the Haskell subset the suite's spec files use: declarations with parameters and `where`, do blocks,
// let/in, if, lambdas, application, infix operators with Haskell's fixities, tuples, lists, record updates. The
// layout rule is Haskell's: a block opened by do/let/where/of takes the column of its first token; a line starting
// at that column starts a new item, left of it closes the block, and a token that cannot continue an item (a closing
// bracket, `in`, `then`) closes it too. An item that cannot be parsed becomes a `bad` item with the reason, so one
// unsupported construct loses one statement, not the file.
import type { BadItem, Decl, Expr, Stmt } from './hs-ast.js';
import type { Token } from './hs-lexer.js';
import { resolve } from './hs-operators.js';

export class ParseError extends Error {}

// Tokens that end an expression wherever they stand.
const CLOSERS = new Set([')', ']', ',', '}', ';']);
const STOP_WORDS = new Set(['in', 'then', 'else', 'of', 'where']);
const STOP_OPS = new Set(['=', '<-', '->', '|', '::']);

export class Parser {
  private pos = 0;
  /** Columns of the open implicit layout blocks (0: an explicit `{ }` block). */
  private readonly layout: number[] = [];

  constructor(private readonly tokens: readonly Token[]) {}

  private peek(): Token | undefined {
    return this.tokens[this.pos];
  }

  private next(): Token {
    const t = this.tokens[this.pos++];
    if (!t) throw new ParseError('unexpected end of file');
    return t;
  }

  private fail(what: string): never {
    const t = this.peek();
    throw new ParseError(t ? `line ${t.line}: ${what}, found ${JSON.stringify(t.text)}` : `${what} at end of file`);
  }

  private is(text: string, t = this.peek()): boolean {
    return t !== undefined && (t.kind === 'special' || t.kind === 'op' || t.kind === 'kw') && t.text === text;
  }

  private expect(text: string): void {
    if (!this.is(text)) this.fail(`expected ${text}`);
    this.pos++;
  }

  /** The next token starts a new line at or left of the innermost implicit block's column. */
  private atLayoutEdge(t = this.peek()): boolean {
    const top = this.layout[this.layout.length - 1];
    return t?.bol === true && top !== undefined && top > 0 && t.col <= top;
  }

  /** Whether an expression ends before the next token. */
  private atExprEnd(): boolean {
    const t = this.peek();
    if (!t || this.atLayoutEdge(t)) return true;
    if (t.kind === 'special' && CLOSERS.has(t.text)) return true;
    if (t.kind === 'kw' && STOP_WORDS.has(t.text)) return true;
    return t.kind === 'op' && STOP_OPS.has(t.text);
  }

  /** The whole module after its header: the top-level declarations (imports, signatures and pragmas skipped). */
  parseModule(): Decl[] {
    if (this.is('module')) {
      while (this.peek() && !this.is('where')) this.pos++;
      this.expect('where');
    }
    return this.block(() => this.decl(true)).filter((d): d is Decl => d !== null);
  }

  /** A block of items after do/let/where/of, implicit (layout) or explicit (braces). */
  private block<T>(item: () => T | null): (T | BadItem)[] {
    const items: (T | BadItem)[] = [];
    const first = this.peek();
    if (this.is('{')) {
      this.pos++;
      this.layout.push(0);
      while (!this.is('}')) {
        items.push(this.guarded(item, 0) as T);
        if (this.is(';')) this.pos++;
      }
      this.pos++;
      this.layout.pop();
      return items;
    }
    const outer = this.layout[this.layout.length - 1] ?? 0;
    if (!first || first.col <= outer) return items;
    const col = first.col;
    this.layout.push(col);
    const depth = this.layout.length;
    for (;;) {
      const got = this.guarded(item, col);
      if (got !== null) items.push(got as T);
      this.layout.length = depth;
      const t = this.peek();
      if (!t) break;
      // A line at the block's column that starts with an operator cannot start an item: the parse-error(t) rule
      // closes the block there, and the operator applies to the whole block (a do block's last statement).
      if (t.bol && t.col === col && t.kind !== 'op' && t.kind !== 'bt') continue;
      if (this.is(';')) {
        this.pos++;
        continue;
      }
      break;
    }
    this.layout.pop();
    return items;
  }

  /** One item; on a parse error, the item's tokens up to the next line at or left of `col` become a bad item. */
  private guarded<T>(item: () => T | null, col: number): T | BadItem | null {
    const start = this.pos;
    const depth = this.layout.length;
    try {
      return item();
    } catch (e) {
      if (!(e instanceof ParseError)) throw e;
      this.layout.length = depth;
      this.pos = start + 1;
      while (this.peek() && !(this.peek()!.bol && this.peek()!.col <= col)) this.pos++;
      return { k: 'bad', reason: e.message, tokens: this.tokens.slice(start, this.pos) };
    }
  }

  /** `name p1 p2 = body [where decls]`; type signatures, imports and other top-level forms are skipped (null). */
  private decl(topLevel = false): Decl | null {
    const t = this.peek()!;
    const skip = () => {
      this.pos++;
      while (!this.atLayoutEdge() && this.peek() && !(topLevel && this.peek()!.bol && this.peek()!.col === 1))
        this.pos++;
      return null;
    };
    if (t.kind === 'kw' && t.text === 'import') return skip();
    if (['data', 'type', 'newtype', 'instance', 'deriving'].includes(t.text)) return skip();
    if (t.kind !== 'var') this.fail('expected a declaration');
    if (this.tokens[this.pos + 1]?.text === '::' || this.tokens[this.pos + 1]?.text === ',') return skip();
    this.pos++;
    const params: string[] = [];
    while (!this.is('=')) {
      const p = this.next();
      if (p.kind !== 'var') this.fail('only variables as parameters');
      params.push(p.text);
    }
    this.pos++;
    let body = this.expr();
    if (this.is('where')) {
      this.pos++;
      const decls = this.block(() => this.decl()).filter((d): d is Decl => d !== null);
      body = { k: 'let', decls, body };
    }
    return { k: 'decl', name: t.text, params, body };
  }

  expr(): Expr {
    const operands: Expr[] = [];
    const ops: string[] = [];
    for (;;) {
      if (operands.length === ops.length) {
        if (this.is('-') && operands.length === 0) {
          this.pos++;
          const e = this.application();
          operands.push(e.k === 'num' ? { k: 'num', v: -e.v } : { k: 'app', f: { k: 'var', name: 'negate' }, a: e });
          continue;
        }
        const head = this.leading();
        if (head) {
          operands.push(head);
          break;
        }
        operands.push(this.application());
        continue;
      }
      if (this.atExprEnd()) break;
      const t = this.peek()!;
      if (t.kind !== 'op' && t.kind !== 'bt') break;
      this.pos++;
      ops.push(t.text);
    }
    if (operands.length === ops.length) this.fail('expected an operand');
    return resolve(operands, ops);
  }

  /** Forms that extend as far right as possible: do, let/in, if, lambda (only as an expression's last operand). */
  private leading(): Expr | null {
    const t = this.peek();
    if (!t) this.fail('expected an expression');
    if (t.kind === 'kw' && t.text === 'do') {
      this.pos++;
      return { k: 'do', stmts: this.block(() => this.stmt()) as Stmt[] };
    }
    if (t.kind === 'kw' && t.text === 'let') {
      this.pos++;
      const decls = this.block(() => this.decl()).filter((d): d is Decl => d !== null);
      this.expect('in');
      return { k: 'let', decls, body: this.expr() };
    }
    if (t.kind === 'kw' && t.text === 'if') {
      this.pos++;
      const c = this.expr();
      this.expect('then');
      const th = this.expr();
      this.expect('else');
      return { k: 'if', c, t: th, e: this.expr() };
    }
    if (t.kind === 'op' && t.text === '\\') {
      this.pos++;
      const params: string[] = [];
      while (!this.is('->')) {
        const p = this.next();
        if (p.kind !== 'var') this.fail('only variables as lambda parameters');
        params.push(p.text);
      }
      this.pos++;
      return { k: 'lam', params, body: this.expr() };
    }
    if (t.kind === 'kw' && t.text === 'case') this.fail('case expressions are not supported');
    return null;
  }

  private stmt(): Stmt {
    if (this.is('let')) {
      this.pos++;
      const decls = this.block(() => this.decl()).filter((d): d is Decl => d !== null);
      if (this.is('in')) {
        this.pos++;
        return { k: 'expr', e: { k: 'let', decls, body: this.expr() } };
      }
      return { k: 'let', decls };
    }
    const e = this.expr();
    if (this.is('<-')) {
      this.pos++;
      if (e.k !== 'var') this.fail('only a variable may be bound with <-');
      return { k: 'bind', name: e.name, e: this.expr() };
    }
    return { k: 'expr', e };
  }

  /** Function application: atoms side by side, a trailing do/let/if/lambda as the last argument. */
  private application(): Expr {
    let e = this.atom();
    while (!this.atExprEnd()) {
      const t = this.peek()!;
      if (t.kind === 'op' || t.kind === 'bt') break;
      const last = this.leading();
      if (last) return { k: 'app', f: e, a: last };
      e = { k: 'app', f: e, a: this.atom() };
    }
    return e;
  }

  private atom(): Expr {
    let e = this.atomNoRecord();
    // A record update binds tighter than application: `[json|..|] { matchStatus = 201 }`.
    while (this.is('{') && !this.atLayoutEdge()) {
      this.pos++;
      const fields: [string, Expr][] = [];
      this.layout.push(0);
      while (!this.is('}')) {
        const name = this.next();
        if (name.kind !== 'var') this.fail('expected a field name');
        this.expect('=');
        fields.push([name.text, this.expr()]);
        if (this.is(',')) this.pos++;
        else if (!this.is('}')) this.fail('expected , or }');
      }
      this.layout.pop();
      this.pos++;
      e = { k: 'rec', e, fields };
    }
    return e;
  }

  private atomNoRecord(): Expr {
    const t = this.next();
    switch (t.kind) {
      case 'str':
      case 'char':
        return { k: 'str', v: t.text };
      case 'num':
        return { k: 'num', v: Number(t.text) };
      case 'qq':
        return { k: 'qq', quoter: t.quoter!, text: t.text, line: t.line };
      case 'var':
        return { k: 'var', name: t.text };
      case 'con':
        return { k: 'con', name: t.text };
      case 'special':
        if (t.text === '(') return this.parenthesised();
        if (t.text === '[') return { k: 'list', items: this.items(']') };
        break;
    }
    this.pos--;
    this.fail('expected an expression');
  }

  /** `( )`: unit, a parenthesised expression, a tuple, an operator as a function, or a section. */
  private parenthesised(): Expr {
    this.layout.push(0);
    try {
      if (this.is(')')) {
        this.pos++;
        return { k: 'tuple', items: [] };
      }
      const t = this.peek()!;
      if (
        (t.kind === 'op' || t.kind === 'bt') &&
        t.text !== '\\' &&
        !(t.text === '-' && this.tokens[this.pos + 1]?.kind === 'num')
      ) {
        this.pos++;
        if (this.is(')')) {
          this.pos++;
          return { k: 'section', op: t.text };
        }
        const r = this.expr();
        this.expect(')');
        return { k: 'section', op: t.text, r };
      }
      const first = this.expr();
      const t2 = this.peek();
      if (t2 && (t2.kind === 'op' || t2.kind === 'bt') && this.tokens[this.pos + 1]?.text === ')') {
        this.pos += 2;
        return { k: 'section', op: t2.text, l: first };
      }
      if (this.is(')')) {
        this.pos++;
        return first;
      }
      const items = [first];
      while (this.is(',')) {
        this.pos++;
        items.push(this.expr());
      }
      this.expect(')');
      return { k: 'tuple', items };
    } finally {
      this.layout.pop();
    }
  }

  private items(close: string): Expr[] {
    this.layout.push(0);
    try {
      const items: Expr[] = [];
      while (!this.is(close)) {
        items.push(this.expr());
        if (this.is(',')) this.pos++;
        else if (!this.is(close)) this.fail(`expected , or ${close}`);
      }
      this.pos++;
      return items;
    } finally {
      this.layout.pop();
    }
  }
}

export function parseModule(tokens: readonly Token[]): Decl[] {
  return new Parser(tokens).parseModule();
}
