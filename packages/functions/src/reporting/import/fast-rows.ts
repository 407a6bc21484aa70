// The byte path of an import: CSV records tokenized straight from the upload's UTF-8 bytes (csv-byte-tokenizer.ts)
// and converted into binary COPY rows (copy-binary.ts), with no string per field or row. The common values are
// written by byte-values.ts; a record it cannot tokenize goes to papaparse, a value it does not recognise to the
// exact conversion (copy-line.ts), which also words every row error.
import { Kind, KINDS, NULL, UNKNOWN, writeValue } from './byte-values.js';
import type { PlannedColumn } from './column-plan.js';
import { writeField } from './copy-binary.js';
import { convertField, valueError, widthError } from './copy-line.js';
import type { CopyBuffer } from './copy-buffer.js';
import { CsvByteTokenizer, fieldText } from './csv-byte-tokenizer.js';
import type { RowError } from './csv-worker-protocol.js';

export class FastRows extends CsvByteTokenizer {
  private readonly kinds: Kind[];

  constructor(
    delimiter: string,
    newline: string,
    private readonly columns: readonly PlannedColumn[],
    private readonly width: number,
    private readonly out: CopyBuffer,
  ) {
    super(delimiter, newline);
    this.kinds = columns.map((c) => (c.part ? Kind.Exact : KINDS[c.type]));
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
