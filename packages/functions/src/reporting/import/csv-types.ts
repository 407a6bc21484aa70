// Column types of imported CSV: detection over a sample (each value strikes out the types it cannot be, in the
// order boolean, integer, numeric, date, timestamp, text) and conversion of every value to the text COPY reads.
import type { ColumnType } from '../dataset-access.js';

export type DateOrder = 'DMY' | 'MDY' | 'YMD';

/** A column name as a dataset's table takes it (mapped targets, calculated fields, planned names). */
export const COLUMN_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

const BOOLEAN = /^(true|false|yes|no|t|f|y|n)$/i;
const INTEGER = /^[+-]?\d{1,18}$/;
const NUMERIC = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d{1,3})?$/;
const YMD = /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})$/;
const XXY = /^(\d{1,2})[-/.](\d{1,2})[-/.](\d{4})$/;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const ISO_TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})[T ](?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d{1,6})?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;
const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const TIME = /^(\d{1,2}):(\d{2})(?::(\d{2})(\.\d{1,6})?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/** What a sample says about one column; `order` is the date order its values force, if any. */
export class ColumnEvidence {
  private candidates = new Set<ColumnType>(['boolean', 'integer', 'numeric', 'date', 'timestamp']);
  private dmy = false;
  private mdy = false;
  nulls = 0;

  add(raw: string): void {
    const value = raw.trim();
    if (value === '') {
      this.nulls++;
      return;
    }
    if (!BOOLEAN.test(value)) this.candidates.delete('boolean');
    if (!INTEGER.test(value)) this.candidates.delete('integer');
    if (!NUMERIC.test(value)) this.candidates.delete('numeric');
    const [datePart, timePart] = splitDateTime(value);
    const parts = datePart ? dateParts(datePart) : undefined;
    if (parts?.kind === 'xxy') {
      if (parts.a > 12) this.dmy = true;
      if (parts.b > 12) this.mdy = true;
    }
    const timeOk = timePart === undefined || TIME.test(timePart);
    if (!parts || timePart !== undefined) this.candidates.delete('date');
    if (!parts || !timeOk) this.candidates.delete('timestamp');
  }

  /** The date order the values force (undefined: none, or both, which rules dates out). */
  forcedOrder(): DateOrder | 'conflict' | undefined {
    if (this.dmy && this.mdy) return 'conflict';
    return this.dmy ? 'DMY' : this.mdy ? 'MDY' : undefined;
  }

  type(): ColumnType {
    if (this.forcedOrder() === 'conflict') {
      this.candidates.delete('date');
      this.candidates.delete('timestamp');
    }
    for (const t of ['boolean', 'integer', 'numeric', 'date', 'timestamp'] as const)
      if (this.candidates.has(t)) return t;
    return 'text';
  }
}

function splitDateTime(value: string): [string, string | undefined] {
  const m = /^(\S+?)(?:[T ]\s*(.+))?$/.exec(value);
  return m ? [m[1], m[2]] : [value, undefined];
}

type Parts = { kind: 'ymd'; y: number; m: number; d: number } | { kind: 'xxy'; a: number; b: number; y: number };

function dateParts(text: string): Parts | undefined {
  let m = YMD.exec(text);
  if (m) return { kind: 'ymd', y: +m[1], m: +m[2], d: +m[3] };
  m = XXY.exec(text);
  if (m) return { kind: 'xxy', a: +m[1], b: +m[2], y: +m[3] };
  return undefined;
}

/** A value in the text form COPY reads for the column's type; throws a message when it does not fit. */
export function convert(raw: string, type: ColumnType, order: DateOrder): string | null {
  const value = raw.trim();
  if (value === '') return null;
  switch (type) {
    case 'text':
      return raw;
    case 'boolean':
      if (!BOOLEAN.test(value)) throw new Error('is not a boolean');
      return /^(true|yes|t|y)$/i.test(value) ? 'true' : 'false';
    case 'integer':
      if (!INTEGER.test(value)) throw new Error('is not a whole number');
      return value.replace(/^\+/, '');
    case 'numeric':
      if (!NUMERIC.test(value)) throw new Error('is not a number');
      return value.replace(/^\+/, '');
    case 'date': {
      // Fast path for ISO dates, the common case of large exports.
      const iso = ISO_DATE.exec(value);
      if (iso && validDay(+iso[1], +iso[2], +iso[3])) return value;
      const [datePart, timePart] = splitDateTime(value);
      if (timePart !== undefined) throw new Error('is not a date');
      return isoDate(datePart, order);
    }
    case 'timestamp': {
      // ISO 8601 is what Postgres reads as it is; without an offset it is taken as UTC.
      const iso = ISO_TIMESTAMP.exec(value);
      if (iso && validDay(+iso[1], +iso[2], +iso[3])) return iso[4] ? value : `${value}+00`;
      const [datePart, timePart] = splitDateTime(value);
      const date = isoDate(datePart, order);
      if (timePart === undefined) return `${date} 00:00:00+00`;
      const t = TIME.exec(timePart);
      if (!t || +t[1] > 23 || +t[2] > 59 || (t[3] !== undefined && +t[3] > 59)) throw new Error('is not a time');
      const zone = !t[5] || t[5].toUpperCase() === 'Z' ? '+00' : t[5];
      return `${date} ${t[1].padStart(2, '0')}:${t[2]}:${t[3] ?? '00'}${t[4] ?? ''}${zone}`;
    }
  }
}

export function validDay(y: number, m: number, d: number): boolean {
  if (y < 1 || m < 1 || m > 12 || d < 1 || d > DAYS_IN_MONTH[m - 1]) return false;
  return m !== 2 || d < 29 || (y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0));
}

function isoDate(text: string, order: DateOrder): string {
  const p = dateParts(text);
  if (!p) throw new Error('is not a date');
  const [y, m, d] = p.kind === 'ymd' ? [p.y, p.m, p.d] : order === 'DMY' ? [p.y, p.b, p.a] : [p.y, p.a, p.b];
  const date = new Date(Date.UTC(y, m - 1, d));
  if (y < 1 || date.getUTCFullYear() !== y || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d)
    throw new Error('is not a calendar date');
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

export type DatePart = 'year' | 'quarter' | 'month' | 'week' | 'day' | 'day_of_week' | 'hour' | 'date';
export const DATE_PARTS: readonly DatePart[] = [
  'year',
  'quarter',
  'month',
  'week',
  'day',
  'day_of_week',
  'hour',
  'date',
];

/** A calculated field from a converted date or timestamp text (UTC for timestamps). */
export function datePart(converted: string | null, part: DatePart): string | null {
  if (converted === null) return null;
  const d = new Date(
    converted.length === 10 ? `${converted}T00:00:00Z` : converted.replace(' ', 'T').replace(/([+-]\d{2})$/, '$1:00'),
  );
  switch (part) {
    case 'year':
      return String(d.getUTCFullYear());
    case 'quarter':
      return String(Math.floor(d.getUTCMonth() / 3) + 1);
    case 'month':
      return String(d.getUTCMonth() + 1);
    case 'day':
      return String(d.getUTCDate());
    case 'day_of_week':
      return String(d.getUTCDay() === 0 ? 7 : d.getUTCDay());
    case 'hour':
      return String(d.getUTCHours());
    case 'date':
      return d.toISOString().slice(0, 10);
    case 'week':
      return String(isoWeek(d));
  }
}

function isoWeek(date: Date): number {
  const d = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
  const day = d.getUTCDay() || 7;
  d.setUTCDate(d.getUTCDate() + 4 - day);
  const yearStart = Date.UTC(d.getUTCFullYear(), 0, 1);
  return Math.ceil(((d.getTime() - yearStart) / 86_400_000 + 1) / 7);
}

/** The delimiter of a CSV from its first lines: the candidate found most, and equally often, on each line. */
export function detectDelimiter(head: string): string {
  const lines = head
    .split(/\r?\n/)
    .filter((l) => l.trim() !== '')
    .slice(0, 20);
  if (lines.length > 1 && !head.endsWith('\n')) lines.pop();
  let best = ',';
  let bestScore = 0;
  for (const candidate of [',', ';', '\t', '|']) {
    const counts = lines.map((line) => countOutsideQuotes(line, candidate));
    const consistent = counts.every((c) => c === counts[0]);
    const score = counts[0] > 0 ? counts[0] * (consistent ? 1000 : 1) : 0;
    if (score > bestScore) {
      best = candidate;
      bestScore = score;
    }
  }
  return best;
}

function countOutsideQuotes(line: string, ch: string): number {
  let n = 0;
  let quoted = false;
  for (const c of line) {
    if (c === '"') quoted = !quoted;
    else if (c === ch && !quoted) n++;
  }
  return n;
}
