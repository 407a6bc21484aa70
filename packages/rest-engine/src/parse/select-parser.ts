// The `select` parameter: columns, aliases, casts, JSON paths, embeds with hints and join types, spreads, aggregates.
import { errors } from '../errors.js';
import { parseField, printField } from './filter-parser.js';
import { matchingParen, splitTopLevel, unquote, upToStrayParen } from './lexer.js';
import { AGGREGATES, type Aggregate, type SelectItem } from './types.js';

const AGG_RE = new RegExp(
  `^(?:([\\s\\S]+)\\.)?(${AGGREGATES.join('|')})\\(\\)(?:::([A-Za-z_][A-Za-z0-9_ ]*(?:\\[\\])?))?$`,
);
const CAST_RE = /^[A-Za-z_][A-Za-z0-9_ ]*(?:\[\])?$/;

export function parseSelect(whole: string): SelectItem[] {
  if (whole.trim() === '') return [];
  // A JSON path step starting with `-` is a negative array index: a digit must follow (PostgREST's words).
  const badIndex = /->>?-(?!\d)/.exec(whole);
  if (badIndex) {
    const at = badIndex.index + badIndex[0].length;
    throw errors.parse(
      `"failed to parse select parameter (${whole})" (line 1, column ${at + 1})`,
      `unexpected ${at < whole.length ? `"${whole[at]}"` : 'end of input'} expecting digit`,
    );
  }
  // A JSON key starts with a character that is not reserved (`.,>()`), or is an index.
  const badKey = /->(?:>(?=[.,>()]|$)|(?=[.,()]|$))/.exec(whole);
  if (badKey) {
    const at = badKey.index + badKey[0].length;
    throw errors.parse(
      `"failed to parse select parameter (${whole})" (line 1, column ${at + 1})`,
      `unexpected ${at < whole.length ? `"${whole[at]}"` : 'end of input'} expecting "-", digit or any non reserved ` +
        'character different from: .,>()',
    );
  }
  const s = upToStrayParen(whole);
  return splitTopLevel(s, 'select').map((item) => parseItem(item.trim(), s));
}

function fail(whole: string, why: string): never {
  throw errors.parse(`"failed to parse select parameter (${whole})" (line 1, column 1)`, why);
}

function splitAlias(item: string): [string | null, string] {
  // An alias ends at the first single ':' that comes before any '(' or '->' and outside quotes.
  let quoted = false;
  for (let i = 0; i < item.length; i++) {
    const ch = item[i];
    if (ch === '"') quoted = !quoted;
    if (quoted) continue;
    if (ch === '(' || (ch === '-' && item[i + 1] === '>')) break;
    if (ch === ':') {
      if (item[i + 1] === ':') {
        i++;
        continue;
      }
      return [unquote(item.slice(0, i).trim()), item.slice(i + 1).trim()];
    }
  }
  return [null, item];
}

function parseItem(item: string, whole: string): SelectItem {
  if (item === '') fail(whole, 'empty select item');
  if (item === '*') return { kind: 'star' };
  let spread = false,
    body = item;
  if (body.startsWith('...')) {
    spread = true;
    body = body.slice(3).trim();
  }
  const [alias, rest] = spread ? [null, body] : splitAlias(body);
  if (alias === '') fail(whole, 'empty alias');
  body = rest;

  const agg = AGG_RE.exec(body);
  if (agg && !spread) {
    // The input may carry a cast of its own, applied before the aggregate: `jsonb_col->>key::int.sum()`.
    const [input, fieldCast] = agg[1] ? splitCast(agg[1], whole) : [null, null];
    const field = input ? parseField(input) : null;
    if (!field && agg[2] !== 'count') fail(whole, `${agg[2]}() needs a column`);
    return { kind: 'aggregate', fn: agg[2] as Aggregate, field, fieldCast, alias, cast: agg[3] ?? null };
  }

  const open = firstParen(body);
  if (open >= 0) {
    const close = matchingParen(body, open);
    if (close !== body.length - 1) fail(whole, `unbalanced or trailing text in "${item}"`);
    const head = body
      .slice(0, open)
      .split('!')
      .map((p) => p.trim());
    const name = unquote(head[0]);
    if (!name) fail(whole, 'embed without a name');
    let hint: string | null = null,
      join: 'inner' | 'left' | null = null;
    for (const part of head.slice(1)) {
      if (part === 'inner' || part === 'left') join = part;
      else if (part && hint === null) hint = unquote(part);
      else fail(whole, `unexpected "!${part}"`);
    }
    return { kind: 'embed', name, alias, hint, join, spread, select: parseSelect(body.slice(open + 1, close)) };
  }
  if (spread) fail(whole, 'a spread needs an embedded resource');

  const [input, cast] = splitCast(body, whole);
  return { kind: 'column', field: parseField(input), alias, cast };
}

/** `field::type` -> [field, type]; [field, null] without a cast. */
function splitCast(body: string, whole: string): [string, string | null] {
  const castAt = body.lastIndexOf('::');
  if (castAt <= 0 || inQuotes(body, castAt)) return [body, null];
  const cast = body.slice(castAt + 2).trim();
  if (!CAST_RE.test(cast)) fail(whole, `invalid cast "${cast}"`);
  return [body.slice(0, castAt), cast];
}

function firstParen(s: string): number {
  let quoted = false;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '"') quoted = !quoted;
    else if (!quoted && s[i] === '(') return i;
  }
  return -1;
}

function inQuotes(s: string, at: number): boolean {
  let q = false;
  for (let i = 0; i < at; i++) if (s[i] === '"') q = !q;
  return q;
}

const quoteName = (n: string) => (/[,.:()!"\\\s>{}-]/.test(n) || n === '*' ? `"${n.replace(/["\\]/g, '\\$&')}"` : n);

/** Prints a select tree back in query-string grammar. */
export function printSelect(items: readonly SelectItem[]): string {
  return items
    .map((it) => {
      switch (it.kind) {
        case 'star':
          return '*';
        case 'column':
          return (it.alias ? `${quoteName(it.alias)}:` : '') + printField(it.field) + (it.cast ? `::${it.cast}` : '');
        case 'aggregate':
          return (
            (it.alias ? `${quoteName(it.alias)}:` : '') +
            (it.field ? `${printField(it.field)}${it.fieldCast ? `::${it.fieldCast}` : ''}.` : '') +
            `${it.fn}()${it.cast ? `::${it.cast}` : ''}`
          );
        case 'embed':
          return (
            (it.spread ? '...' : '') +
            (it.alias ? `${quoteName(it.alias)}:` : '') +
            quoteName(it.name) +
            (it.hint ? `!${quoteName(it.hint)}` : '') +
            (it.join ? `!${it.join}` : '') +
            '(' +
            printSelect(it.select) +
            ')'
          );
        default:
          throw new Error('unknown select item');
      }
    })
    .join(',');
}
