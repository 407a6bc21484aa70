// The `order` parameter: `a.desc.nullslast,b,json->>k,rel(col).asc`.
import { errors } from '../errors.js';
import { parseField, printField } from './filter-parser.js';
import { fieldDot, splitTopLevel, unquote } from './lexer.js';
import type { OrderTerm } from './types.js';

export function parseOrder(s: string): OrderTerm[] {
  let offset = 0;
  return splitTopLevel(s, 'order').map((term) => {
    const at = offset + (term.length - term.trimStart().length);
    offset += term.length + 1;
    return parseTerm(term.trim(), s, at);
  });
}

const KEYWORDS = ['nullsfirst', 'nullslast', 'asc', 'desc'];

function fail(whole: string, why: string): never {
  throw errors.parse(`"failed to parse order (${whole})" (line 1, column 1)`, why);
}

function parseTerm(term: string, whole: string, at: number): OrderTerm {
  if (term === '') fail(whole, 'empty order term');
  let relation: string | null = null,
    rest = term;
  const rel = /^([^()."]+|"[^"]*")\(([^()]+)\)(.*)$/.exec(term);
  if (rel) {
    relation = unquote(rel[1]);
    rest = rel[2] + rel[3];
  }
  // The field ends at the first dot outside quotes; modifiers follow.
  const dot = fieldDot(rest);
  const fieldText = dot < 0 ? rest : rest.slice(0, dot);
  const mods = dot < 0 ? [] : rest.slice(dot + 1).split('.');
  let dir: OrderTerm['dir'] = null,
    nulls: OrderTerm['nulls'] = null;
  for (const m of mods) {
    if ((m === 'asc' || m === 'desc') && dir === null && nulls === null) dir = m;
    else if ((m === 'nullsfirst' || m === 'nullslast') && nulls === null) nulls = m === 'nullsfirst' ? 'first' : 'last';
    else {
      // A keyword followed by more (`nullslasttt`): PostgREST's parser stops after the keyword.
      const k = KEYWORDS.find((w) => m.startsWith(w));
      if (k === undefined) fail(whole, `unexpected "${m}"`);
      const column = at + dot + 1 + rest.slice(dot + 1).indexOf(`${m}`) + k.length + 1;
      const expecting = k.startsWith('nulls') ? '"," or end of input' : '".", "," or end of input';
      throw errors.parse(
        `"failed to parse order (${whole})" (line 1, column ${column})`,
        `unexpected '${m[k.length]}' expecting ${expecting}`,
      );
    }
  }
  return { kind: 'order', relation, field: parseField(fieldText), dir, nulls };
}

export function printOrder(terms: readonly OrderTerm[]): string {
  return terms
    .map((t) => {
      const f = printField(t.field);
      return (
        (t.relation ? `${t.relation}(${f})` : f) + (t.dir ? `.${t.dir}` : '') + (t.nulls ? `.nulls${t.nulls}` : '')
      );
    })
    .join(',');
}
