// The byte tokenizer of the import's fast path: finds the fields of one CSV record in the upload's UTF-8 bytes the
// way papaparse reads them (plain and quoted fields, doubled quotes, the file's line break), without making strings.
// It answers the record's bounds; fast-rows.ts converts them.

/** What tokenize() found instead of a record. */
export const INCOMPLETE = -1;
export const IRREGULAR = -2;

const QUOTE = 0x22;
const LF = 0x0a;

/** A field: 0 as it is, 1 quoted, 2 quoted with doubled quotes inside. */
const PLAIN = 0;
const QUOTED = 1;
export const ESCAPED = 2;

export class CsvByteTokenizer {
  /** Bounds and kind of each field of the last record tokenized. */
  starts = new Int32Array(64);
  ends = new Int32Array(64);
  protected flags = new Uint8Array(64);
  /** Where the record after the last one tokenized starts. */
  next = 0;
  private readonly delimiter: number;
  private readonly newline: number;
  private readonly crlf: boolean;

  constructor(delimiter: string, newline: string) {
    this.delimiter = delimiter.charCodeAt(0);
    this.newline = newline.charCodeAt(0);
    this.crlf = newline === '\r\n';
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
}

const decoder = new TextDecoder();

/** The text of a field the tokenizer found, its doubled quotes made single. */
export function fieldText(b: Uint8Array, start: number, end: number, flag: number): string {
  const text = decoder.decode(b.subarray(start, end));
  return flag === ESCAPED ? text.replaceAll('""', '"') : text;
}
