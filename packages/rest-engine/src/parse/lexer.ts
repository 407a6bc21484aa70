// Splitting helpers shared by the select, order and logic parsers: commas at depth zero, outside double quotes.
import { errors } from '../errors.js';

/** Splits on `sep` outside parentheses, braces and double-quoted strings (`\"` and `\\` escape inside quotes). */
export function splitTopLevel(s: string, what: string, sep = ','): string[] {
  const out: string[] = [];
  let depth = 0,
    quoted = false,
    start = 0;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (quoted) {
      if (ch === '\\') i++;
      else if (ch === '"') quoted = false;
      continue;
    }
    if (ch === '"') quoted = true;
    else if (ch === '(' || ch === '{') depth++;
    else if (ch === ')' || ch === '}') {
      if (--depth < 0) throw errors.parse(`"failed to parse ${what}" (${s})`, `unexpected "${ch}" at position ${i}`);
    } else if (ch === sep && depth === 0) {
      out.push(s.slice(start, i));
      start = i + 1;
    }
  }
  if (quoted || depth !== 0)
    throw errors.parse(`"failed to parse ${what}" (${s})`, quoted ? 'unterminated quote' : 'unbalanced parentheses');
  out.push(s.slice(start));
  return out;
}

/** Index of the parenthesis closing the one at `open`, honouring quotes; -1 when unbalanced. */
export function matchingParen(s: string, open: number): number {
  let depth = 0,
    quoted = false;
  for (let i = open; i < s.length; i++) {
    const ch = s[i];
    if (quoted) {
      if (ch === '\\') i++;
      else if (ch === '"') quoted = false;
      continue;
    }
    if (ch === '"') quoted = true;
    else if (ch === '(') depth++;
    else if (ch === ')' && --depth === 0) return i;
  }
  return -1;
}

/** Removes surrounding double quotes and resolves `\"` / `\\`; other text is returned unchanged. */
export function unquote(s: string): string {
  if (s.length >= 2 && s.startsWith('"') && s.endsWith('"')) return s.slice(1, -1).replace(/\\(.)/g, '$1');
  return s;
}
