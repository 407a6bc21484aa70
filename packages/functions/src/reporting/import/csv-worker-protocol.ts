// The messages between an import's main thread (network in, COPY out) and its parse worker (CSV parse, column
// plan, conversion and validation of every row): the CPU half runs beside the I/O half instead of before it.
import type { PlannedColumn } from './column-plan.js';
import type { ImportOptions } from './import-options.js';
import type { DatasetColumn } from '../dataset-access.js';

export interface RowError {
  row: number;
  column: string | null;
  value: string | null;
  message: string;
}

export interface WorkerSetup {
  delimiter: string;
  options: ImportOptions;
  /** The dataset's columns when rows are appended to it. */
  existing?: DatasetColumn[];
}

export type ToWorker =
  | { type: 'chunk'; data: Uint8Array }
  | { type: 'end' }
  /** The staging table exists: convert the rows. */
  | { type: 'start' }
  /** A batch was written to COPY: another may come. */
  | { type: 'written' };

export type FromWorker =
  /** A chunk went into the parser: the main thread may send another. */
  | { type: 'consumed' }
  | { type: 'schema'; columns: PlannedColumn[] }
  /** `data`: the batch's rows in COPY's binary format, transferred (not copied) to the main thread. */
  | { type: 'batch'; data: Uint8Array; rows: number; rowsRead: number; failed: number; errors: RowError[] }
  | { type: 'done'; rowsRead: number; failed: number }
  /** A FunctionError (a column mapping that does not fit the file) or another failure, by its fields. */
  | { type: 'failed'; code?: string; message: string; details?: string };
