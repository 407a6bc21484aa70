// Filters (`col->k=not.op(any).value`), `in` lists and the `or=(...)` / `and=(...)` logic trees.
import { errors } from '../errors.js';
import { fieldDot, splitTopLevel, unquote } from './lexer.js';
import {
  FTS_OPERATORS,
  OPERATORS,
  QUANTIFIABLE,
  type Condition,
  type Field,
  type Filter,
  type FilterValue,
  type JsonStep,
  type Logic,
  type Operator,
} from './types.js';

const OPS: ReadonlySet<string> = new Set(OPERATORS);

/** `name`, `"quoted name"`, `json->a->>b`, `arr->0`. */
export function parseField(s: string): Field {
  const raw = s.trim();
  // A quoted name may itself contain '->': split the JSON path only after the closing quote.
  let end = 0;
  if (raw.startsWith('"')) {
    end = 1;
    while (end < raw.length && raw[end] !== '"') end += raw[end] === '\\' ? 2 : 1;
    end++;
  }
  const parts = raw.slice(end).split(/(->>?)/);
  parts[0] = raw.slice(0, end) + parts[0];
  const name = unquote(parts[0]);
  if (name === '') throw errors.parse(`"failed to parse field" (${s})`, 'empty column name');
  const jsonPath: JsonStep[] = [];
  for (let i = 1; i < parts.length; i += 2) {
    const key = unquote(parts[i + 1] ?? '');
    if (key === '') throw errors.parse(`"failed to parse json path" (${s})`, 'empty json key');
    jsonPath.push({ arrow: parts[i] as '->' | '->>', key, index: /^-?\d+$/.test(key) });
  }
  return { name, jsonPath };
}

/** `(1,"a,b",c)` -> ['1', 'a,b', 'c']; `()` -> []. */
function parseList(s: string): string[] {
  if (!s.startsWith('(') || !s.endsWith(')'))
    throw errors.parse(`"failed to parse filter" (in.${s})`, 'expected a parenthesised list');
  const inner = s.slice(1, -1);
  if (inner.trim() === '') return [];
  // As PostgREST reads a list: blanks after the opening parenthesis are skipped; an element is a double-quoted
  // string (`\` escapes inside) when a comma or the end follows its closing quote, else the text up to the next
  // comma as it is (a lone `"` is the value `"`).
  const out: string[] = [];
  let i = /^\s*/.exec(inner)![0].length;
  for (;;) {
    let value: string | null = null;
    if (inner[i] === '"') {
      let j = i + 1,
        quoted = '';
      while (j < inner.length && inner[j] !== '"') {
        if (inner[j] === '\\' && j + 1 < inner.length) j++;
        quoted += inner[j++];
      }
      if (j < inner.length && (j + 1 === inner.length || inner[j + 1] === ',')) {
        value = quoted;
        i = j + 1;
      }
    }
    if (value === null) {
      const comma = inner.indexOf(',', i);
      const end = comma === -1 ? inner.length : comma;
      value = inner.slice(i, end);
      i = end;
    }
    out.push(value);
    if (i >= inner.length) return out;
    i++; // the comma
  }
}

/** Parses `[not.]op[(any|all|lang)].value` for a field. */
export function parseFilter(field: Field, spec: string, inLogicTree = false): Filter {
  let rest = spec,
    negate = false;
  if (rest.startsWith('not.')) {
    negate = true;
    rest = rest.slice(4);
  }
  const m = /^([a-z]+)(?:\(([^)]*)\))?\.([\s\S]*)$/.exec(rest);
  if (!m || !OPS.has(m[1])) {
    throw errors.parse(
      `"failed to parse filter (${spec})" (line 1, column 1)`,
      `unknown or missing operator in "${spec}"`,
    );
  }
  const op = m[1] as Operator,
    mod = m[2] ?? null;
  let raw = m[3];
  let quant: Filter['quant'] = null,
    lang: string | null = null;
  if (mod !== null) {
    if (FTS_OPERATORS.has(op)) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(mod))
        throw errors.parse(`"failed to parse filter (${spec})"`, 'invalid text search language');
      lang = mod;
    } else if ((mod === 'any' || mod === 'all') && QUANTIFIABLE.has(op)) quant = mod;
    else throw errors.parse(`"failed to parse filter (${spec})"`, `unexpected modifier "${mod}" for operator ${op}`);
  }
  let value: FilterValue;
  if (op === 'is') {
    const v = raw.toLowerCase();
    // `not_null` is PostgREST's spelling of IS NOT NULL.
    if (v !== 'null' && v !== 'not_null' && v !== 'true' && v !== 'false' && v !== 'unknown') {
      throw errors.parse(`"failed to parse filter (${spec})"`, 'is accepts null, not_null, true, false or unknown');
    }
    value = { kind: 'is', value: v };
  } else if (op === 'in') {
    value = { kind: 'list', values: parseList(raw) };
  } else if (quant) {
    // `eq(any).{a,b}` (PostgREST's form) or `eq(any).(a,b)`.
    const list = raw.startsWith('{') && raw.endsWith('}') ? `(${raw.slice(1, -1)})` : raw;
    value = { kind: 'list', values: parseList(list) };
  } else {
    if (inLogicTree) raw = unquote(raw);
    if (op === 'like' || op === 'ilike') raw = raw.replace(/\*/g, '%');
    value = { kind: 'scalar', value: raw };
  }
  if (quant && (op === 'like' || op === 'ilike') && value.kind === 'list') {
    value = { kind: 'list', values: value.values.map((v) => v.replace(/\*/g, '%')) };
  }
  return { kind: 'filter', field, negate, op, quant, lang, value };
}

/** `(a.eq.1,not.or(b.lt.2,c.is.null))` as the value of `or=` / `and=` (with the operator from the key). */
export function parseLogic(op: 'and' | 'or', negate: boolean, value: string): Logic {
  const v = value.trim();
  if (!v.startsWith('(') || !v.endsWith(')')) {
    throw errors.parse(`"failed to parse logic tree (${value})" (line 1, column 1)`, 'expected "(" ... ")"');
  }
  const children = splitTopLevel(v.slice(1, -1), 'logic tree').map((item) => parseCondition(item.trim(), value));
  if (children.length === 0) throw errors.parse(`"failed to parse logic tree (${value})"`, 'empty logic tree');
  return { kind: 'logic', op, negate, children };
}

function parseCondition(item: string, whole: string): Condition {
  const m = /^(not\.)?(and|or)(\([\s\S]*\))$/.exec(item);
  if (m) return parseLogic(m[2] as 'and' | 'or', !!m[1], m[3]);
  // field.[not.]op.value; the field ends at the first dot outside quotes.
  const dot = fieldDot(item);
  if (dot <= 0) throw errors.parse(`"failed to parse logic tree (${whole})"`, `"${item}" is not a filter`);
  return parseFilter(parseField(item.slice(0, dot)), item.slice(dot + 1), true);
}

/** Prints a condition back in query-string grammar (used by round-trip tests and by Location headers). */
export function printCondition(c: Condition): string {
  if (c.kind === 'logic') return `${c.negate ? 'not.' : ''}${c.op}(${c.children.map(printCondition).join(',')})`;
  return `${printField(c.field)}.${printFilterSpec(c, true)}`;
}

const quoteItem = (v: string) => (/[,.:()"\\\s{}]/.test(v) || v === '' ? `"${v.replace(/["\\]/g, '\\$&')}"` : v);

function printFilterSpec(f: Filter, inLogicTree = false): string {
  const mod = f.lang ? `(${f.lang})` : f.quant ? `(${f.quant})` : '';
  const v = f.value;
  const val =
    v.kind === 'is'
      ? v.value
      : v.kind === 'list'
        ? f.quant
          ? `{${v.values.map(quoteItem).join(',')}}`
          : `(${v.values.map(quoteItem).join(',')})`
        : inLogicTree
          ? quoteItem(v.value)
          : v.value;
  return `${f.negate ? 'not.' : ''}${f.op}${mod}.${val}`;
}

export function printField(f: Field): string {
  const name = /[,.:()"\\\s>{}!*-]/.test(f.name) ? `"${f.name.replace(/["\\]/g, '\\$&')}"` : f.name;
  return name + f.jsonPath.map((s) => s.arrow + s.key).join('');
}
