// The exact conversion of a CSV record (as strings) to a binary COPY row: what every value must come out as, the
// row errors and their messages. The byte path (fast-rows.ts) handles the common values itself and sends everything
// else here, so both agree by construction.
import type { PlannedColumn } from './column-plan.js';
import { writeField } from './copy-binary.js';
import type { CopyBuffer } from './copy-buffer.js';
import type { RowError } from './csv-worker-protocol.js';
import { convert, datePart } from './csv-types.js';

/** A value as COPY reads it for the column (null for an empty cell); throws the reason it does not fit. */
export function convertField(raw: string, column: PlannedColumn, columns: readonly PlannedColumn[]): string | null {
  if (raw.includes('\u0000')) throw new Error('contains a NUL character');
  if (!column.part) return convert(raw, column.type, column.order);
  const sourceType = columns.find((c) => c.index === column.index && !c.calculated)?.type ?? 'timestamp';
  return datePart(convert(raw, sourceType, column.order), column.part);
}

/** The row error of a value that does not fit its column. */
export function valueError(row: number, column: PlannedColumn, raw: string, error: unknown): RowError {
  return { row, column: column.name, value: raw, message: `${JSON.stringify(raw)} ${(error as Error).message}` };
}

export function widthError(row: number, fields: number, width: number): RowError {
  return { row, column: null, value: null, message: `has ${fields} fields, the header has ${width}` };
}

/** One binary COPY row written to `out`, or false after reporting why the record cannot be loaded. */
export function toCopyRow(
  record: readonly string[],
  width: number,
  columns: readonly PlannedColumn[],
  row: number,
  reportError: (e: RowError) => void,
  out: CopyBuffer,
): boolean {
  if (record.length !== width) {
    reportError(widthError(row, record.length, width));
    return false;
  }
  const rowStart = out.length;
  out.reserve(2);
  out.int16(columns.length);
  for (const column of columns) {
    const raw = record[column.index] ?? '';
    try {
      writeField(column.type, convertField(raw, column, columns), out);
    } catch (error) {
      reportError(valueError(row, column, raw, error));
      out.length = rowStart;
      return false;
    }
  }
  return true;
}
