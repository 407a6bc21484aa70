// The values the import's fast path writes itself: each cell's bytes checked against its column's kind (integer,
// numeric, boolean, ISO date and timestamp, text) and written in COPY's binary format; what it does not recognise
// is answered UNKNOWN and left to the exact conversion (copy-line.ts).
import type { PlannedColumn } from './column-plan.js';
import { isoDays, writeInt8, writeNumeric, writeTimestamptz } from './copy-binary.js';
import type { CopyBuffer } from './copy-buffer.js';
import { ESCAPED } from './csv-byte-tokenizer.js';
import { validDay } from './csv-types.js';

const QUOTE = 0x22;
const PLUS = 0x2b;
const MINUS = 0x2d;
const DOT = 0x2e;
const COLON = 0x3a;

/** How a column's values are written: by a check of their own, or (calculated fields) by the exact path. */
export const Kind = { Text: 0, Integer: 1, Numeric: 2, Boolean: 3, Date: 4, Timestamp: 5, Exact: 6 } as const;
export type Kind = (typeof Kind)[keyof typeof Kind];
export const KINDS: Record<PlannedColumn['type'], Kind> = {
  text: Kind.Text,
  integer: Kind.Integer,
  numeric: Kind.Numeric,
  boolean: Kind.Boolean,
  date: Kind.Date,
  timestamp: Kind.Timestamp,
};
/** What writeValue did: wrote the value, found an empty cell (null), or left it to the exact path. */
const WRITTEN = 1;
export const NULL = 0;
export const UNKNOWN = -1;

/** Writes the value of `b[start, end)` as COPY's binary format has it for its kind. */
export function writeValue(
  kind: Kind,
  b: Uint8Array,
  start: number,
  end: number,
  flag: number,
  out: CopyBuffer,
): number {
  if (kind === Kind.Text) return writeText(b, start, end, flag, out);
  if (kind === Kind.Exact || flag === ESCAPED) return UNKNOWN;
  // JavaScript's trim() over ASCII; other whitespace is non-ASCII, which no check below accepts.
  while (start < end && isSpace(b[start])) start++;
  while (end > start && isSpace(b[end - 1])) end--;
  if (start === end) return NULL;
  switch (kind) {
    case Kind.Integer:
      if (!isInteger(b, start, end)) return UNKNOWN;
      writeInt8(b, start, end, out);
      return WRITTEN;
    case Kind.Numeric:
      // A number of more than a thousand characters may be beyond Postgres' range: the exact path words it.
      if (end - start > 1000 || !isNumeric(b, start, end)) return UNKNOWN;
      writeNumeric(b, start, end, out);
      return WRITTEN;
    case Kind.Boolean: {
      if (end - start > 5) return UNKNOWN;
      const value = BOOLEANS.get(packWord(b, start, end));
      if (value === undefined) return UNKNOWN;
      out.byte(value ? 1 : 0);
      return WRITTEN;
    }
    case Kind.Date:
      if (end - start !== 10 || !isoDate(b, start)) return UNKNOWN;
      out.int32(isoDays(b, start));
      return WRITTEN;
    default:
      return isTimestamp(b, start, end) && writeTimestamptz(b, start, end, out) ? WRITTEN : UNKNOWN;
  }
}

const isSpace = (c: number) => c === 0x20 || (c >= 0x09 && c <= 0x0d);
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

/** Text as it is, its doubled quotes made single; an all-blank cell is null. */
function writeText(b: Uint8Array, start: number, end: number, flag: number, out: CopyBuffer): number {
  let visible = false;
  for (let i = start; i < end; i++) {
    const c = b[i];
    if (c === 0) return UNKNOWN;
    if (c < 0x80 && !isSpace(c)) visible = true;
  }
  if (!visible) {
    // All ASCII whitespace (or nothing): trim() leaves nothing, a null. With other bytes, trim() decides.
    for (let i = start; i < end; i++) if (b[i] >= 0x80) return UNKNOWN;
    return NULL;
  }
  if (flag !== ESCAPED) {
    out.copy(b, start, end);
    return WRITTEN;
  }
  const bytes = out.bytes;
  let at = out.length;
  for (let i = start; i < end; i++) {
    bytes[at++] = b[i];
    if (b[i] === QUOTE) i++;
  }
  out.length = at;
  return WRITTEN;
}

/** `[+-]?\d{1,18}`. */
function isInteger(b: Uint8Array, start: number, end: number): boolean {
  const sign = b[start] === PLUS || b[start] === MINUS ? 1 : 0;
  const digits = end - start - sign;
  if (digits < 1 || digits > 18) return false;
  for (let i = start + sign; i < end; i++) if (!isDigit(b[i])) return false;
  return true;
}

/** `[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d{1,3})?`. */
function isNumeric(b: Uint8Array, start: number, end: number): boolean {
  let i = start;
  if (b[i] === PLUS || b[i] === MINUS) i++;
  let digits = 0;
  while (i < end && isDigit(b[i])) {
    i++;
    digits++;
  }
  if (i < end && b[i] === DOT) {
    i++;
    while (i < end && isDigit(b[i])) {
      i++;
      digits++;
    }
  }
  if (digits === 0) return false;
  if (i < end && (b[i] | 0x20) === 0x65) {
    i++;
    if (i < end && (b[i] === PLUS || b[i] === MINUS)) i++;
    const from = i;
    while (i < end && isDigit(b[i])) i++;
    if (i - from < 1 || i - from > 3) return false;
  }
  return i === end;
}

/** A word of up to five letters as a number, in any case: five bits a letter. */
function packWord(b: ArrayLike<number>, start: number, end: number): number {
  let word = 0;
  for (let i = start; i < end; i++) {
    const c = b[i] | 0x20;
    if (c < 0x61 || c > 0x7a) return -1;
    word = word * 32 + (c - 0x60);
  }
  return word;
}
/** `true false yes no t f y n` in any case. */
const BOOLEANS = new Map(
  Object.entries({ true: true, yes: true, t: true, y: true, false: false, no: false, f: false, n: false }).map(
    ([word, value]) => [packWord(new TextEncoder().encode(word), 0, word.length), value],
  ),
);

/** `\d{4}-\d{2}-\d{2}` naming a day of the calendar. */
function isoDate(b: Uint8Array, at: number): boolean {
  if (b[at + 4] !== MINUS || b[at + 7] !== MINUS) return false;
  const y = digits(b, at, 4);
  const m = digits(b, at + 5, 2);
  const d = digits(b, at + 8, 2);
  return y >= 0 && m >= 0 && d >= 0 && validDay(y, m, d);
}

/** The number written by `count` digits at `at`, or -1. */
function digits(b: Uint8Array, at: number, count: number): number {
  let n = 0;
  for (let i = at; i < at + count; i++) {
    const c = b[i];
    if (!isDigit(c)) return -1;
    n = n * 10 + c - 0x30;
  }
  return n;
}

/** ISO 8601 as Postgres reads it: `yyyy-mm-dd[T ]hh:mm[:ss[.f{1,6}]][Z|±hh[[:]mm]]` (T and Z in any case). */
function isTimestamp(b: Uint8Array, start: number, end: number): boolean {
  if (end - start < 16 || !isoDate(b, start)) return false;
  const t = b[start + 10];
  if (t !== 0x20 && (t | 0x20) !== 0x74) return false;
  const hour = digits(b, start + 11, 2);
  if (hour < 0 || hour > 23 || b[start + 13] !== COLON || !sixty(b, start + 14)) return false;
  let i = start + 16;
  if (i < end && b[i] === COLON) {
    if (i + 3 > end || !sixty(b, i + 1)) return false;
    i += 3;
    if (i < end && b[i] === DOT) {
      const from = ++i;
      while (i < end && isDigit(b[i])) i++;
      if (i - from < 1 || i - from > 6) return false;
    }
  }
  if (i < end && (b[i] | 0x20) === 0x7a) i++;
  else if (i < end && (b[i] === PLUS || b[i] === MINUS)) {
    if (i + 3 > end || digits(b, i + 1, 2) < 0) return false;
    i += 3;
    if (i < end) {
      if (b[i] === COLON) i++;
      if (i + 2 > end || digits(b, i, 2) < 0) return false;
      i += 2;
    }
  }
  return i === end;
}

/** `[0-5]\d` at `at`. */
function sixty(b: Uint8Array, at: number): boolean {
  return b[at] >= 0x30 && b[at] <= 0x35 && isDigit(b[at + 1]);
}
