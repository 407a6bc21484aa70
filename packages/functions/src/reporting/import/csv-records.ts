// CSV records from a stream of text chunks: papaparse's own parser run over each chunk's complete lines, the
// unfinished last line carried into the next chunk. That is what papaparse's stream mode does, without its
// per-row callbacks and stream pushes, which cost four times the parse itself. A chunk without a line break
// cannot end a record and is only kept, so one long line is parsed once, not once per chunk.
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
const LINE_BREAK = /[\r\n]/;

export class CsvRecords {
  private carried: string[] = [];
  private newline: string | undefined;

  constructor(private readonly delimiter: string) {}

  /** The records completed by `text`; `final` at the end of the input, which completes the last one. */
  push(text: string, final: boolean): string[][] {
    if (!final && !LINE_BREAK.test(text)) {
      this.carried.push(text);
      return [];
    }
    this.carried.push(text);
    const input = this.carried.join('');
    this.carried = [];
    if (this.newline === undefined) {
      // A CR that ends the text may be half of a CRLF: decided with the character after it.
      if (!final && input.endsWith('\r')) {
        this.carried.push(input);
        return [];
      }
      // Decided once, from the first text with a line break, as papaparse decides it.
      this.newline = guessLineEndings(input);
    }
    const parsed = new Parser({ delimiter: this.delimiter, newline: this.newline }).parse(input, 0, !final);
    if (!final && parsed.meta.cursor < input.length) this.carried.push(input.substring(parsed.meta.cursor));
    // papaparse's skipEmptyLines: true.
    return parsed.data.filter((record) => record.length !== 1 || record[0] !== '');
  }
}

function guessLineEndings(input: string): string {
  const handle = new (Papa as unknown as { ParserHandle: new (config: object) => GuessingHandle }).ParserHandle({});
  return handle.guessLineEndings(input, '"');
}

interface GuessingHandle {
  guessLineEndings(input: string, quoteChar: string): string;
}
