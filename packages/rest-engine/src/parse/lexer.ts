// Splitting helpers shared by the select, order and logic parsers: commas at depth zero, outside double quotes.
import { errors } from '../errors.js';

/**
 * Walks `s` from `from`, stepping over double-quoted strings (`\"` and `\\` escape inside them), and calls `visit`
 * with each character outside quotes and its index; `visit` returning true ends the walk. Returns whether the walk
 * reached the end inside a quoted string.
 */
function walkUnquoted(s: string, from: number, visit: (ch: string, i: number) => boolean): boolean {
  let quoted = false;
  for (let i = from; i < s.length; i++) {
    const ch = s[i];
    if (quoted) {
      if (ch === '\\') i++;
      else if (ch === '"') quoted = false;
    } else if (ch === '"') quoted = true;
    else if (visit(ch, i)) return false;
  }
  return quoted;
}

/** Splits on `sep` outside parentheses, braces and double-quoted strings (`\"` and `\\` escape inside quotes). */
export function splitTopLevel(s: string, what: string, sep = ','): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  const quoted = walkUnquoted(s, 0, (ch, i) => {
    if (ch === '(' || ch === '{') depth++;
    else if (ch === ')' || ch === '}') {
      if (--depth < 0) throw errors.parse(`"failed to parse ${what}" (${s})`, `unexpected "${ch}" at position ${i}`);
    } else if (ch === sep && depth === 0) {
      out.push(s.slice(start, i));
      start = i + 1;
    }
    return false;
  });
  if (quoted || depth !== 0)
    throw errors.parse(`"failed to parse ${what}" (${s})`, quoted ? 'unterminated quote' : 'unbalanced parentheses');
  out.push(s.slice(start));
  return out;
}

/**
 * The part of a request's `select` that PostgREST reads: it parses items separated by commas and ignores whatever
 * follows the first top-level item it cannot continue after, here a closing parenthesis that closes nothing
 * (`a,rel(b))`) or text right after an embed's closing parenthesis (`a,rel(b)'`; not a cast after an aggregate's
 * parentheses, `sum()::text`). The rest is dropped unread.
 */
export function selectPrefix(s: string): string {
  let depth = 0;
  let cut = -1;
  walkUnquoted(s, 0, (ch, i) => {
    if (ch === '(') depth++;
    else if (ch === ')') {
      if (depth === 0) cut = i;
      else if (--depth === 0) {
        const rest = s.slice(i + 1).trimStart();
        // `count()::text`: an aggregate's cast continues the item.
        if (rest !== '' && !rest.startsWith(',') && !rest.startsWith('::')) cut = i + 1;
      }
    }
    return cut !== -1;
  });
  return cut === -1 ? s : s.slice(0, cut);
}

/** Index of the parenthesis closing the one at `open`, honouring quotes; -1 when unbalanced. */
export function matchingParen(s: string, open: number): number {
  let depth = 0;
  let found = -1;
  walkUnquoted(s, open, (ch, i) => {
    if (ch === '(') depth++;
    else if (ch === ')' && --depth === 0) found = i;
    return found !== -1;
  });
  return found;
}

/** The first dot after the field that starts `s` (a name, or a double-quoted one that may contain dots); -1 if none. */
export function fieldDot(s: string): number {
  let i = 0;
  if (s.startsWith('"')) {
    i = 1;
    while (i < s.length && s[i] !== '"') i += s[i] === '\\' ? 2 : 1;
    i++;
  }
  return s.indexOf('.', i);
}

/** Removes surrounding double quotes and resolves `\"` / `\\`; other text is returned unchanged. */
export function unquote(s: string): string {
  if (s.length >= 2 && s.startsWith('"') && s.endsWith('"')) return s.slice(1, -1).replace(/\\(.)/g, '$1');
  return s;
}

/**
 * `s` up to the first parenthesis that closes nothing (outside quotes): PostgREST's parsers stop there and do not
 * read the rest (`a,b(c))` is `a,b(c)`).
 */
export function upToStrayParen(s: string): string {
  let depth = 0;
  let cut = -1;
  walkUnquoted(s, 0, (ch, i) => {
    if (ch === '(') depth++;
    else if (ch === ')' && --depth < 0) cut = i;
    return cut !== -1;
  });
  return cut === -1 ? s : s.slice(0, cut);
}
