// The values the translator's evaluator computes from the suite's Haskell: strings and numbers, JSON quotes,
// lists and tuples, functions, hspec-wai's matchers, requests, steps and spec trees. Anything outside them is
// `Untranslatable`, thrown with the reason, and the example that needed it is counted as not translated.
import type { Check, HttpRequest, Step } from './cases.js';

export class Untranslatable extends Error {}

export interface Thunk {
  force(): Val;
}

export type SpecItem =
  | { readonly kind: 'it'; readonly path: readonly string[]; readonly steps: readonly Step[]; readonly config?: Val }
  | { readonly kind: 'skip'; readonly path: readonly string[]; readonly reason: string };

export type Val =
  | { readonly t: 'str'; readonly v: string; readonly bytes?: Buffer }
  | { readonly t: 'num'; readonly v: number }
  | { readonly t: 'bool'; readonly v: boolean }
  | { readonly t: 'json'; readonly v: unknown }
  | { readonly t: 'list'; readonly items: readonly Val[] }
  | { readonly t: 'tuple'; readonly items: readonly Val[] }
  | { readonly t: 'con'; readonly name: string; readonly args: readonly Val[] }
  | { readonly t: 'fn'; readonly name: string; apply(arg: Thunk): Val }
  | { readonly t: 'matcher'; readonly status: number; readonly headers: readonly Check[]; readonly body: Check | null }
  | { readonly t: 'check'; readonly check: Check }
  /** A request; `part` after `simpleBody <$>` and the like (what a `<-` binding of it will name). */
  | { readonly t: 'request'; readonly request: HttpRequest; readonly part?: 'body' | 'headers' | 'status' }
  /** A response bound with `<-` (`part`: what of it, after `simpleBody <$>` and the like). */
  | { readonly t: 'response'; readonly ref: number; readonly part: 'all' | 'body' | 'headers' | 'status' }
  | { readonly t: 'steps'; readonly steps: readonly Step[] }
  | { readonly t: 'spec'; readonly items: readonly SpecItem[] }
  /** `baseCfg { field = value }`: the fields set over SpecHelper's baseCfg, evaluated when the config is mapped. */
  | { readonly t: 'cfg'; readonly fields: Readonly<Record<string, Thunk>> }
  | { readonly t: 'unit' };

export const unit: Val = { t: 'unit' };
export const str = (v: string): Val => ({ t: 'str', v });
export const ready = (v: Val): Thunk => ({ force: () => v });

export function fn(name: string, arity: number, body: (args: Thunk[]) => Val): Val {
  const curry = (got: Thunk[]): Val => ({
    t: 'fn',
    name,
    apply: (a) => (got.length + 1 === arity ? body([...got, a]) : curry([...got, a])),
  });
  return arity === 0 ? body([]) : curry([]);
}

/** Bytes of a string value (a ByteString literal, or a file read with readFixtureFile). */
export function bytesOf(v: Val): Buffer {
  if (v.t === 'str') return v.bytes ?? Buffer.from(v.v, 'utf8');
  if (v.t === 'list' && v.items.length === 0) return Buffer.alloc(0);
  throw new Untranslatable(`expected a string, got ${describe(v)}`);
}

export function textOf(v: Val): string {
  if (v.t === 'str') return v.v;
  if (v.t === 'list' && v.items.length === 0) return '';
  throw new Untranslatable(`expected a string, got ${describe(v)}`);
}

export function numOf(v: Val): number {
  if (v.t === 'num') return v.v;
  throw new Untranslatable(`expected a number, got ${describe(v)}`);
}

export function listOf(v: Val): readonly Val[] {
  if (v.t === 'list') return v.items;
  if (v.t === 'str' && v.v === '') return [];
  throw new Untranslatable(`expected a list, got ${describe(v)}`);
}

export function describe(v: Val): string {
  switch (v.t) {
    case 'fn':
      return `the function ${v.name}`;
    case 'con':
      return `${v.name}${v.args.length ? ' ...' : ''}`;
    case 'str':
      return JSON.stringify(v.v.slice(0, 40));
    default:
      return v.t;
  }
}
