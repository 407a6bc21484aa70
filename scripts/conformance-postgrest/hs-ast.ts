// The syntax tree of the suite's Haskell subset, as the parser builds it and the evaluator walks it.
import type { Token } from './hs-lexer.js';

export type Expr =
  | { readonly k: 'str'; readonly v: string }
  | { readonly k: 'num'; readonly v: number }
  | { readonly k: 'qq'; readonly quoter: string; readonly text: string; readonly line: number }
  | { readonly k: 'var'; readonly name: string }
  | { readonly k: 'con'; readonly name: string }
  | { readonly k: 'app'; readonly f: Expr; readonly a: Expr }
  | { readonly k: 'op'; readonly op: string; readonly l: Expr; readonly r: Expr }
  | { readonly k: 'section'; readonly op: string; readonly l?: Expr; readonly r?: Expr }
  | { readonly k: 'tuple'; readonly items: readonly Expr[] }
  | { readonly k: 'list'; readonly items: readonly Expr[] }
  | { readonly k: 'rec'; readonly e: Expr; readonly fields: readonly (readonly [string, Expr])[] }
  | { readonly k: 'do'; readonly stmts: readonly Stmt[] }
  | { readonly k: 'let'; readonly decls: readonly Decl[]; readonly body: Expr }
  | { readonly k: 'if'; readonly c: Expr; readonly t: Expr; readonly e: Expr }
  | { readonly k: 'lam'; readonly params: readonly string[]; readonly body: Expr };

export type Stmt =
  | { readonly k: 'bind'; readonly name: string; readonly e: Expr }
  | { readonly k: 'let'; readonly decls: readonly Decl[] }
  | { readonly k: 'expr'; readonly e: Expr }
  | BadItem;

export type Decl =
  | { readonly k: 'decl'; readonly name: string; readonly params: readonly string[]; readonly body: Expr }
  | BadItem;

/** An item the parser could not read: its reason, and its tokens (to find the `it` descriptions inside). */
export interface BadItem {
  readonly k: 'bad';
  readonly reason: string;
  readonly tokens: readonly Token[];
}
