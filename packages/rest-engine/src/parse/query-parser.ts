// The query string as a whole: sorts each parameter into select, filters, logic trees, order, limits and options.
import { errors } from '../errors.js';
import { parseField, parseFilter, parseLogic } from './filter-parser.js';
import { selectPrefix, splitTopLevel, unquote } from './lexer.js';
import { parseOrder } from './order-parser.js';
import { parseSelect } from './select-parser.js';
import type { QueryTree } from './types.js';

function splitKey(key: string): [string[], string] {
  const arrow = key.indexOf('->');
  const head = arrow < 0 ? key : key.slice(0, arrow);
  const tail = arrow < 0 ? '' : key.slice(arrow);
  const parts = head.split('.');
  const last = parts.pop()! + tail;
  return [parts, last];
}

function nonNegativeInt(v: string, what: string): number {
  // A negative limit asks for a range that cannot exist: 416, as PostgREST (an unreadable one is a parse error).
  if (what === 'limit' && /^-\d{1,15}$/.test(v.trim())) throw errors.negativeLimit();
  // A negative offset skips nothing (PostgREST takes it as no offset).
  if (what === 'offset' && /^-\d{1,15}$/.test(v.trim())) return 0;
  if (!/^\d{1,15}$/.test(v.trim()))
    throw errors.parse(`"failed to parse ${what} parameter (${v})"`, `${what} must be a non-negative integer`);
  return Number(v.trim());
}

type Limits = Map<string, { path: string[]; limit: number | null; offset: number | null }>;

function limitFor(limits: Limits, path: string[]) {
  const k = path.join('.');
  let l = limits.get(k);
  if (!l) {
    l = { path, limit: null, offset: null };
    limits.set(k, l);
  }
  return l;
}

export function parseQuery(search: string): QueryTree {
  const params = new URLSearchParams(search.startsWith('?') ? search.slice(1) : search);
  let select: QueryTree['select'] = null;
  let onConflict: string[] | null = null,
    columns: string[] | null = null;
  const filters: QueryTree['filters'][number][] = [];
  const logic: QueryTree['logic'][number][] = [];
  const order: QueryTree['order'][number][] = [];
  const limits: Limits = new Map();

  for (const [key, value] of params) {
    if (key === 'select') {
      // An empty root select is no select: every column, as PostgREST (an empty embed `rel()` stays empty).
      select = value.trim() === '' ? null : parseSelect(selectPrefix(value));
      continue;
    }
    if (key === 'on_conflict') {
      onConflict = splitTopLevel(value, 'on_conflict').map((c) => unquote(c.trim()));
      continue;
    }
    if (key === 'columns') {
      if (value.trim() === '')
        throw errors.parse(
          `"failed to parse columns parameter (${value})" (line 1, column ${value.length + 1})`,
          'unexpected end of input expecting field name (* or [a..z0..9_$])',
        );
      columns = splitTopLevel(value, 'columns')
        .map((c) => unquote(c.trim()))
        .filter((c) => c !== '');
      continue;
    }
    const [path, last] = splitKey(key);
    if (last === 'order') {
      order.push({ path, node: parseOrder(value) });
      continue;
    }
    if (last === 'limit') {
      limitFor(limits, path).limit = nonNegativeInt(value, 'limit');
      continue;
    }
    if (last === 'offset') {
      limitFor(limits, path).offset = nonNegativeInt(value, 'offset');
      continue;
    }
    if (last === 'or' || last === 'and') {
      const negate = path[path.length - 1] === 'not';
      logic.push({ path: negate ? path.slice(0, -1) : path, node: parseLogic(last, negate, value) });
      continue;
    }
    let node: QueryTree['filters'][number]['node'];
    try {
      node = parseFilter(parseField(last), value);
    } catch (e) {
      node = e as Error;
    }
    filters.push({ path, key, raw: value, node });
  }
  return {
    select,
    filters,
    logic,
    order,
    onConflict,
    columns,
    limits: [...limits.values()].map((l) => ({ path: l.path, node: { limit: l.limit, offset: l.offset } })),
  };
}
