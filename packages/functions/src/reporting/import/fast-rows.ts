// The byte path of an import: CSV records tokenized straight from the upload's UTF-8 bytes and converted into binary
// COPY rows (copy-binary.ts), with no string per field or row. It takes what papaparse reads the same way (plain and
// quoted fields, doubled quotes, the file's line break) and the common values (ISO dates and timestamps, plain numbers,
// booleans, text); a record it cannot tokenize goes to papaparse, a value it does not recognise to the exact conversion
// (copy-line.ts), which also words every row error.
import type { PlannedColumn } from './column-plan.js';
import { isoDays, writeField, writeInt8, writeNumeric, writeTimestamptz } from './copy-binary.js';
import { convertField, valueError, widthError } from './copy-line.js';
import type { CopyBuffer } from './copy-buffer.js';
import type { RowError } from './csv-worker-protocol.js';
import { validDay } from './csv-types.js';

/** What tokenize() found instead of a record. */
export const INCOMPLETE = -1;
export const IRREGULAR = -2;

const QUOTE = 0x22;
const LF = 0x0a;
const PLUS = 0x2b;
const MINUS = 0x2d;
const DOT = 0x2e;
const COLON = 0x3a;

/** A field: 0 as it is, 1 quoted, 2 quoted with doubled quotes inside. */
const PLAIN = 0;
const QUOTED = 1;
const ESCAPED = 2;

/** How a column's values are written: by a check of their own, or (calculated fields) by the exact path. */
const Kind = { Text: 0, Integer: 1, Numeric: 2, Boolean: 3, Date: 4, Timestamp: 5, Exact: 6 } as const;
type Kind = (typeof Kind)[keyof typeof Kind];
const KINDS: Record<PlannedColumn['type'], Kind> = {
  text: Kind.Text,
  integer: Kind.Integer,
  numeric: Kind.Numeric,
  boolean: Kind.Boolean,
  date: Kind.Date,
  timestamp: Kind.Timestamp,
};
const decoder = new TextDecoder();

export class FastRows {
  /** Bounds and kind of each field of the last record tokenized. */
  starts = new Int32Array(64);
  ends = new Int32Array(64);
  private flags = new Uint8Array(64);
  /** Where the record after the last one tokenized starts. */
  next = 0;
  private readonly delimiter: number;
  private readonly newline: number;
  private readonly crlf: boolean;
  private readonly kinds: Kind[];

  constructor(
    delimiter: string,
    newline: string,
    private readonly columns: readonly PlannedColumn[],
    private readonly width: number,
    private readonly out: CopyBuffer,
  ) {
    this.delimiter = delimiter.charCodeAt(0);
    this.newline = newline.charCodeAt(0);
    this.crlf = newline === '\r\n';
    this.kinds = columns.map((c) => (c.part ? Kind.Exact : KINDS[c.type]));
  }

  /**
   * The fields of the record at `at`: their number, INCOMPLETE when the input ends inside it (and more is to
   * come), IRREGULAR when papaparse would read it in its own way (a quote closed by something else than the
   * delimiter or a line break, a quote never closed at the end).
   */
  tokenize(b: Uint8Array, at: number, final: boolean): number {
    const length = b.length;
    const delimiter = this.delimiter;
    let n = 0;
    let p = at;
    for (;;) {
      if (n === this.starts.length) this.grow();
      if (p < length && b[p] === QUOTE) {
        let flag = QUOTED;
        let q = p + 1;
        for (;;) {
          q = b.indexOf(QUOTE, q);
          if (q === -1) return final ? IRREGULAR : INCOMPLETE;
          if (q + 1 < length && b[q + 1] === QUOTE) {
            flag = ESCAPED;
            q += 2;
            continue;
          }
          break;
        }
        this.starts[n] = p + 1;
        this.ends[n] = q;
        this.flags[n++] = flag;
        const after = q + 1;
        if (after === length) {
          if (!final) return INCOMPLETE;
          this.next = length;
          return n;
        }
        const c = b[after];
        if (c === delimiter) {
          p = after + 1;
          continue;
        }
        const end = this.lineBreakAt(b, after, final);
        if (end === INCOMPLETE) return INCOMPLETE;
        if (end < 0) return IRREGULAR;
        this.next = end;
        return n;
      }
      let q = p;
      for (; q < length; q++) {
        const c = b[q];
        if (c === delimiter) break;
        if (c === this.newline) {
          const end = this.lineBreakAt(b, q, final);
          if (end === INCOMPLETE) return INCOMPLETE;
          if (end >= 0) {
            this.starts[n] = p;
            this.ends[n] = q;
            this.flags[n++] = PLAIN;
            this.next = end;
            return n;
          }
        }
      }
      if (q === length && !final) return INCOMPLETE;
      this.starts[n] = p;
      this.ends[n] = q;
      this.flags[n++] = PLAIN;
      if (q === length) {
        this.next = length;
        return n;
      }
      p = q + 1;
    }
  }

  /** Where the record after a line break at `at` starts; -3 when there is none, INCOMPLETE when undecided. */
  private lineBreakAt(b: Uint8Array, at: number, final: boolean): number {
    if (b[at] !== this.newline) return -3;
    if (!this.crlf) return at + 1;
    if (at + 1 === b.length) return final ? -3 : INCOMPLETE;
    return b[at + 1] === LF ? at + 2 : -3;
  }

  private grow(): void {
    const size = this.starts.length * 2;
    const starts = new Int32Array(size);
    const ends = new Int32Array(size);
    const flags = new Uint8Array(size);
    starts.set(this.starts);
    ends.set(this.ends);
    flags.set(this.flags);
    this.starts = starts;
    this.ends = ends;
    this.flags = flags;
  }

  /** True for a record of one empty field: an empty line, which papaparse's skipEmptyLines drops. */
  isEmptyLine(n: number): boolean {
    return n === 1 && this.starts[0] === this.ends[0];
  }

  /**
   * Writes the COPY row of the last record tokenized (of `fields` fields); false, with nothing written and the
   * reason reported, when it cannot be loaded.
   */
  convert(b: Uint8Array, fields: number, row: number, reportError: (e: RowError) => void): boolean {
    const out = this.out;
    if (fields !== this.width) {
      reportError(widthError(row, fields, this.width));
      return false;
    }
    const rowStart = out.length;
    const columns = this.columns;
    out.reserve(2);
    out.int16(columns.length);
    for (let i = 0; i < columns.length; i++) {
      const index = columns[i].index;
      const start = this.starts[index];
      const end = this.ends[index];
      const flag = this.flags[index];
      out.reserve(end - start + 24);
      const lengthAt = out.length;
      out.length += 4;
      const written = writeValue(this.kinds[i], b, start, end, flag, out);
      if (written !== UNKNOWN) {
        out.int32At(lengthAt, written === NULL ? -1 : out.length - lengthAt - 4);
        continue;
      }
      // Not a value this path knows: the exact conversion decides, and words the error.
      out.length = lengthAt;
      const raw = fieldText(b, start, end, flag);
      try {
        writeField(columns[i].type, convertField(raw, columns[i], columns), out);
      } catch (error) {
        reportError(valueError(row, columns[i], raw, error));
        out.length = rowStart;
        return false;
      }
    }
    return true;
  }
}

function fieldText(b: Uint8Array, start: number, end: number, flag: number): string {
  const text = decoder.decode(b.subarray(start, end));
  return flag === ESCAPED ? text.replaceAll('""', '"') : text;
}

/** What writeValue did: wrote the value, found an empty cell (null), or left it to the exact path. */
const WRITTEN = 1;
const NULL = 0;
const UNKNOWN = -1;

/** Writes the value of `b[start, end)` as COPY's binary format has it for its kind. */
function writeValue(kind: Kind, b: Uint8Array, start: number, end: number, flag: number, out: CopyBuffer): number {
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
