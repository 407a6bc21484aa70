// Reads PostgreSQL COPY text rows as they stream by (tab-separated fields, `\N` for null, backslash escapes),
// keeping of each row only the fields asked for, decoded as PostgreSQL decodes them. Anything an exporter's COPY
// TO never writes, and that PostgreSQL might read differently from this reader (a raw NUL or carriage return, an
// escaped line break, the end-of-data marker `\.`), is refused, so the rows checked are the rows loaded.

/** A kept field longer than this is only known to be long (no key or URL is). */
const FIELD_MAX = 64 * 1024;

const TAB = 9;
const LF = 10;
const CR = 13;
const BACKSLASH = 92;
const DOT = 46;

const SIMPLE_ESCAPES: Record<number, number> = { 98: 8, 102: 12, 110: 10, 114: 13, 116: 9, 118: 11 };
const isOctal = (b: number) => b >= 48 && b <= 55;
const hexValue = (b: number) =>
  b >= 48 && b <= 57 ? b - 48 : b >= 97 && b <= 102 ? b - 87 : b >= 65 && b <= 70 ? b - 55 : -1;

/** A field's raw COPY text decoded: null for `\N`, escapes resolved (as PostgreSQL's CopyReadAttributesText). */
export function decodeField(raw: Buffer): string | null {
  if (raw.length === 2 && raw[0] === BACKSLASH && raw[1] === 78) return null;
  const out = Buffer.allocUnsafe(raw.length);
  let n = 0;
  for (let i = 0; i < raw.length; i++) {
    let c = raw[i]!;
    if (c === BACKSLASH && i + 1 < raw.length) {
      c = raw[++i]!;
      if (isOctal(c)) {
        let value = c - 48;
        for (let k = 0; k < 2 && i + 1 < raw.length && isOctal(raw[i + 1]!); k++) value = value * 8 + raw[++i]! - 48;
        c = value & 0xff;
      } else if (c === 120 && i + 1 < raw.length && hexValue(raw[i + 1]!) >= 0) {
        let value = hexValue(raw[++i]!);
        if (i + 1 < raw.length && hexValue(raw[i + 1]!) >= 0) value = value * 16 + hexValue(raw[++i]!);
        c = value;
      } else c = SIMPLE_ESCAPES[c] ?? c;
    }
    out[n++] = c;
  }
  return out.toString('utf8', 0, n);
}

/**
 * Feeds COPY text in pieces (a row may span them); calls `onRow` with the wanted fields of each row (by column
 * index, in the order asked). Throws an Error saying what is wrong with the text.
 */
export class CopyTextRows {
  rows = 0;
  private field = 0;
  private escaped = false;
  private lineBytes = 0;
  private readonly slot: Map<number, number>;
  private readonly values: (string | null | undefined)[];
  private readonly kept = Buffer.allocUnsafe(FIELD_MAX);
  private keptLength = 0;

  constructor(
    private readonly width: number,
    wanted: readonly number[],
    private readonly onRow: (fields: readonly (string | null | undefined)[]) => void,
  ) {
    this.slot = new Map(wanted.map((column, i) => [column, i]));
    this.values = wanted.map(() => undefined);
  }

  push(bytes: Buffer): void {
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i]!;
      if (b === 0 || b === CR) throw new Error(`a raw ${b ? 'carriage return' : 'NUL byte'} in row ${this.rows + 1}`);
      if (this.escaped) {
        if (b === LF || b === DOT)
          throw new Error(
            `an escaped ${b === LF ? 'line break' : 'period (end-of-data marker)'} in row ${this.rows + 1}`,
          );
        this.escaped = false;
        this.keep(b);
        this.lineBytes++;
        continue;
      }
      if (b === LF) {
        this.endField();
        if (this.field !== this.width - 1)
          throw new Error(`row ${this.rows + 1} has ${this.field + 1} fields, not ${this.width}`);
        this.rows++;
        this.onRow(this.values);
        this.field = 0;
        this.lineBytes = 0;
        continue;
      }
      this.lineBytes++;
      if (b === TAB) {
        this.endField();
        if (++this.field >= this.width) throw new Error(`row ${this.rows + 1} has more than ${this.width} fields`);
        continue;
      }
      if (b === BACKSLASH) this.escaped = true;
      this.keep(b);
    }
  }

  /** The text must end at the end of a row. */
  end(): void {
    if (this.lineBytes || this.field || this.escaped) throw new Error(`it ends inside row ${this.rows + 1}`);
  }

  private keep(b: number): void {
    if (!this.slot.has(this.field)) return;
    if (this.keptLength < FIELD_MAX) this.kept[this.keptLength] = b;
    this.keptLength++;
  }

  private endField(): void {
    const slot = this.slot.get(this.field);
    if (slot === undefined) return;
    // An overlong field is kept as undefined: it matches no key, and names no object.
    this.values[slot] = this.keptLength > FIELD_MAX ? undefined : decodeField(this.kept.subarray(0, this.keptLength));
    this.keptLength = 0;
  }
}
