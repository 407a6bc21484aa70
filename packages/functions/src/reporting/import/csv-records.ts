// CSV records from the upload's bytes as they arrive. The input is cut into blocks that end at a line break (or
// the end), so no block splits a character; what a block leaves unfinished (the last record's start) is carried
// into the next. A chunk without a line break cannot end a record and is only kept, so one long line is parsed
// once. Blocks are read by the byte path (fast-rows.ts) or here by papaparse's own parser over the block's text,
// which is what papaparse's stream mode does without its per-row callbacks (four times the parse's cost).
import Papa from 'papaparse';

interface ParseOutput {
  data: string[][];
  meta: { cursor: number };
}

/** papaparse's low-level parser (exported as Papa.Parser, not in its types). */
type LowLevelParser = new (config: {
  delimiter: string;
  newline: string;
}) => {
  parse(input: string, baseIndex: number, ignoreLastRow: boolean): ParseOutput;
};
const Parser = (Papa as unknown as { Parser: LowLevelParser }).Parser;
const CR = 0x0d;
const LF = 0x0a;
const encoder = new TextEncoder();

export class CsvRecords {
  private carried: Uint8Array[] = [];
  /** The file's line break, as papaparse guesses it from the first input with one. */
  newline: string | undefined;

  constructor(private readonly delimiter: string) {}

  /**
   * What may hold complete records: the bytes carried and `chunk` up to its last line break (all of it when
   * `final`, at the end of the input); undefined when nothing can be complete yet.
   */
  block(chunk: Uint8Array, final: boolean): Uint8Array | undefined {
    const cut = final ? chunk.length : Math.max(chunk.lastIndexOf(LF), chunk.lastIndexOf(CR)) + 1;
    if (cut === 0 && !final) {
      this.carried.push(chunk);
      return undefined;
    }
    if (this.newline === undefined) {
      const all = concat([...this.carried, chunk]);
      // A CR that ends the input may be half of a CRLF: decided with the byte after it.
      if (!final && all[all.length - 1] === CR) {
        this.carried = [all];
        return undefined;
      }
      this.newline = guessLineEndings(decode(all));
    }
    const block = concat([...this.carried, chunk.subarray(0, cut)]);
    this.carried = cut < chunk.length ? [chunk.slice(cut)] : [];
    return block;
  }

  /** Carries `block` from `from` on into the next block: the start of a record not complete yet. */
  keep(block: Uint8Array, from: number): void {
    if (from < block.length) this.carried.unshift(block.slice(from));
  }

  /** papaparse's records of `block` from `from` on, keeping an unfinished last one for the next block. */
  parse(block: Uint8Array, from: number, final: boolean): string[][] {
    const input = decode(block.subarray(from));
    const parsed = new Parser({ delimiter: this.delimiter, newline: this.newline ?? '\n' }).parse(input, 0, !final);
    // Carried as the text's bytes: any invalid UTF-8 in it is already a replacement character.
    if (!final && parsed.meta.cursor < input.length)
      this.carried.unshift(encoder.encode(input.substring(parsed.meta.cursor)));
    // papaparse's skipEmptyLines: true.
    return parsed.data.filter((record) => record.length !== 1 || record[0] !== '');
  }
}

function concat(parts: Uint8Array[]): Uint8Array {
  return parts.length === 1 ? parts[0] : Buffer.concat(parts);
}

function decode(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

function guessLineEndings(input: string): string {
  const handle = new (Papa as unknown as { ParserHandle: new (config: object) => GuessingHandle }).ParserHandle({});
  return handle.guessLineEndings(input, '"');
}

interface GuessingHandle {
  guessLineEndings(input: string, quoteChar: string): string;
}
