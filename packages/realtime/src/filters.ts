// Row filters of postgres_changes bindings (`column=op.value`, op one of eq, neq, lt, lte, gt, gte, in), checked
// in this process against the decoded row, so a change costs nothing for subscribers it does not match.
import type { Column } from './change-capture.js';
import type { TupleValues } from './pgoutput.js';

type FilterOp = 'eq' | 'neq' | 'lt' | 'lte' | 'gt' | 'gte' | 'in';

export interface RowFilter {
  column: string;
  op: FilterOp;
  values: string[];
  numeric: boolean;
}

const FILTER = /^([^=]+)=(eq|neq|lt|lte|gt|gte|in)\.(.*)$/s;
const NUMERIC_TYPES = new Set(['int2', 'int4', 'int8', 'float4', 'float8', 'numeric', 'oid']);

/** Parses a filter against the table's columns; returns the reason when it cannot be used. */
export function parseFilter(text: string, columns: readonly Column[]): RowFilter | string {
  const match = FILTER.exec(text);
  if (!match) return `invalid filter "${text}": expected column=op.value with op one of eq, neq, lt, lte, gt, gte, in`;
  const [, column, op, raw] = match as unknown as [string, string, FilterOp, string];
  const col = columns.find((c) => c.name === column);
  if (!col) return `invalid filter "${text}": no column "${column}"`;
  let values = [raw];
  if (op === 'in') {
    const list = /^\((.*)\)$/s.exec(raw);
    if (!list) return `invalid filter "${text}": in takes a list, in.(a,b)`;
    values = splitList(list[1]!);
  }
  return { column, op, values, numeric: NUMERIC_TYPES.has(col.type) };
}

export function matchesFilter(filter: RowFilter, row: TupleValues): boolean {
  const value = row[filter.column];
  if (value === null || value === undefined) return false; // as in SQL: a comparison with NULL is not true
  const cmp = (other: string) => compare(value, other, filter.numeric);
  switch (filter.op) {
    case 'eq':
      return cmp(filter.values[0]!) === 0;
    case 'neq':
      return cmp(filter.values[0]!) !== 0;
    case 'lt':
      return cmp(filter.values[0]!) < 0;
    case 'lte':
      return cmp(filter.values[0]!) <= 0;
    case 'gt':
      return cmp(filter.values[0]!) > 0;
    case 'gte':
      return cmp(filter.values[0]!) >= 0;
    case 'in':
      return filter.values.some((v) => cmp(v) === 0);
  }
}

function compare(a: string, b: string, numeric: boolean): number {
  if (numeric) {
    const x = Number(a);
    const y = Number(b);
    if (!Number.isNaN(x) && !Number.isNaN(y)) return x - y;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

// in.(a,"b,c",d): commas split, double quotes keep commas inside a value.
function splitList(text: string): string[] {
  const values: string[] = [];
  const re = /\s*(?:"((?:[^"\\]|\\.)*)"|([^,]*))\s*(?:,|$)/gy;
  while (re.lastIndex < text.length) {
    const m = re.exec(text);
    if (!m) break;
    values.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2]!.trim());
    if (m[0] === '') break;
  }
  return values;
}
