// An import's conversion, from the upload's bytes to batches of binary COPY rows (the main thread frames them with the
// format's header and trailer): the header, a sample that plans the columns, then every record converted and validated,
// with the row errors and the counts of the contract. Blocks after the sample take the byte path (fast-rows.ts); the
// header, the sample, blocks that are not valid UTF-8 and records the byte path cannot tokenize are read by papaparse
// and converted as strings (copy-line.ts).
import { isUtf8 } from 'node:buffer';
import { type PlannedColumn, planColumns } from './column-plan.js';
import { CopyBuffer } from './copy-buffer.js';
import { toCopyRow } from './copy-line.js';
import { CsvRecords } from './csv-records.js';
import type { RowError, WorkerSetup } from './csv-worker-protocol.js';
import { INCOMPLETE, IRREGULAR } from './csv-byte-tokenizer.js';
import { FastRows } from './fast-rows.js';

const SAMPLE_ROWS = 2000;
const MAX_LISTED_ERRORS = 1000;

export interface CopyBatch {
  /** The batch's rows in COPY's binary format. */
  data: Uint8Array;
  rows: number;
  rowsRead: number;
  failed: number;
  errors: RowError[];
}

interface ConversionHooks {
  /** The columns are planned; resolves when rows may be converted (the table exists). */
  planned(columns: PlannedColumn[]): Promise<void>;
  /** A batch is ready; resolves when the next may be made. */
  batch(batch: CopyBatch): Promise<void>;
}

export class CsvToCopy {
  rowsRead = 0;
  failed = 0;
  private readonly records: CsvRecords;
  private readonly out = new CopyBuffer();
  private header: string[] | undefined;
  private sample: string[][] = [];
  private columns: PlannedColumn[] | undefined;
  private width = 0;
  private fast: FastRows | undefined;
  private batchRows = 0;
  private listed = 0;
  private errors: RowError[] = [];

  /** `bytePath: false` reads every record with papaparse (tests compare both paths). */
  constructor(
    private readonly setup: WorkerSetup,
    private readonly hooks: ConversionHooks,
    private readonly bytePath = true,
  ) {
    this.records = new CsvRecords(setup.delimiter);
  }

  /** Converts what `chunk` completes; `final` at the end of the input, which also sends the last batch. */
  async push(chunk: Uint8Array, final: boolean): Promise<void> {
    const block = this.records.block(chunk, final);
    if (block) {
      if (this.fast && isUtf8(block)) await this.fastBlock(this.fast, block, final);
      else await this.take(this.records.parse(block, 0, final));
    }
    if (!final) return;
    this.columns ??= await this.plan();
    const { batchSize } = this.setup.options;
    if (this.batchRows > 0 || this.errors.length > 0 || this.rowsRead % batchSize !== 0 || this.rowsRead === 0)
      await this.flush();
  }

  private async fastBlock(fast: FastRows, block: Uint8Array, final: boolean): Promise<void> {
    const { batchSize } = this.setup.options;
    const reportError = this.reportError;
    let at = 0;
    while (at < block.length) {
      const fields = fast.tokenize(block, at, final);
      if (fields === INCOMPLETE) break;
      if (fields === IRREGULAR) return this.take(this.records.parse(block, at, final));
      at = fast.next;
      if (fast.isEmptyLine(fields)) continue;
      this.rowsRead++;
      if (fast.convert(block, fields, this.rowsRead, reportError)) this.batchRows++;
      if (this.rowsRead % batchSize === 0) await this.flush();
    }
    this.records.keep(block, at);
  }

  /** Records read as strings: the header, the sample, then rows converted one by one. */
  private async take(records: string[][]): Promise<void> {
    for (const record of records) {
      if (this.columns) await this.convert(record);
      else if (!this.header && this.setup.options.hasHeader) this.header = stripBom(record);
      else {
        this.sample.push(record);
        if (this.sample.length >= SAMPLE_ROWS) this.columns = await this.plan();
      }
    }
  }

  /** The columns from the header and the sample; the sample's rows are converted once the table exists. */
  private async plan(): Promise<PlannedColumn[]> {
    this.header ??= (this.sample[0] ?? []).map((_, i) => `column_${i + 1}`);
    this.width = this.header.length;
    const columns = planColumns(this.header, this.sample, this.setup.options, this.setup.existing);
    await this.hooks.planned(columns);
    this.columns = columns;
    if (this.bytePath)
      this.fast = new FastRows(this.setup.delimiter, this.records.newline ?? '\n', columns, this.width, this.out);
    for (const record of this.sample) await this.convert(record);
    this.sample = [];
    return columns;
  }

  private async convert(record: string[]): Promise<void> {
    this.rowsRead++;
    if (toCopyRow(record, this.width, this.columns ?? [], this.rowsRead, this.reportError, this.out)) this.batchRows++;
    if (this.rowsRead % this.setup.options.batchSize === 0) await this.flush();
  }

  private readonly reportError = (error: RowError) => {
    this.failed++;
    if (this.listed < MAX_LISTED_ERRORS) {
      this.listed++;
      this.errors.push(error);
    }
  };

  private async flush(): Promise<void> {
    const batch = {
      data: this.out.take(),
      rows: this.batchRows,
      rowsRead: this.rowsRead,
      failed: this.failed,
      errors: this.errors,
    };
    this.batchRows = 0;
    this.errors = [];
    await this.hooks.batch(batch);
  }
}

/**
 * A UTF-8 byte-order mark reaches the parser as part of the first header name; NUL characters (binary junk) are
 * dropped from names, since the names are stored as JSON and Postgres refuses \u0000 there.
 */
function stripBom(header: string[]): string[] {
  const names = header.map((name) => name.replaceAll('\u0000', ''));
  return names.length > 0 && names[0].startsWith('\uFEFF') ? [names[0].slice(1), ...names.slice(1)] : names;
}
