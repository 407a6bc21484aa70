// An import's parse worker (a worker thread): reads the CSV bytes the main thread sends, plans the columns from a
// sample, converts and validates every row and sends COPY bytes back one batch at a time, at most two ahead of what
// COPY has taken. Parsing and conversion are nearly all of an import's CPU; here they do not stall other requests.
import { once } from 'node:events';
import { StringDecoder } from 'node:string_decoder';
import { parentPort, workerData } from 'node:worker_threads';
import { FunctionError } from '../../errors.js';
import { type PlannedColumn, planColumns } from './column-plan.js';
import { CsvRecords } from './csv-records.js';
import type { FromWorker, RowError, ToWorker, WorkerSetup } from './csv-worker-protocol.js';
import { convert, datePart } from './csv-types.js';

const SAMPLE_ROWS = 2000;
const MAX_LISTED_ERRORS = 1000;
const BATCHES_AHEAD = 2;

const port = parentPort;
if (!port) throw new Error('csv-worker runs as a worker thread');
const setup = workerData as WorkerSetup;
const send = (message: FromWorker, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

// The chunks from the main thread, in order; each is acknowledged when taken, so at most a few wait here.
const inbox: Array<Uint8Array | null> = [];
const arrived = new EventTarget();
let started: () => void = () => {};
const start = new Promise<void>((resolve) => {
  started = resolve;
});
let ahead = 0;
const written = new EventTarget();
port.on('message', (m: ToWorker) => {
  if (m.type === 'chunk' || m.type === 'end') {
    inbox.push(m.type === 'chunk' ? m.data : null);
    arrived.dispatchEvent(new Event('arrived'));
  } else if (m.type === 'start') started();
  else {
    ahead--;
    written.dispatchEvent(new Event('written'));
  }
});

/** The upload as text, chunk by chunk; a character split between two chunks is decoded whole. */
async function* texts(): AsyncGenerator<{ text: string; final: boolean }> {
  const decoder = new StringDecoder('utf8');
  for (;;) {
    while (inbox.length === 0) await once(arrived, 'arrived');
    const data = inbox.shift() as Uint8Array | null;
    if (data === null) {
      yield { text: decoder.end(), final: true };
      return;
    }
    send({ type: 'consumed' });
    yield { text: decoder.write(data as Buffer), final: false };
  }
}

run().then(
  (done) => send({ type: 'done', ...done }),
  (error: unknown) => {
    const e = error as Error;
    send(
      error instanceof FunctionError
        ? { type: 'failed', code: error.code, message: error.message, details: error.details }
        : { type: 'failed', message: e?.message ?? String(error) },
    );
  },
);

async function run(): Promise<{ rowsRead: number; failed: number }> {
  const { options } = setup;
  const records = new CsvRecords(setup.delimiter);
  let header: string[] | undefined;
  const sample: string[][] = [];
  let columns: PlannedColumn[] | undefined;
  let width = 0;

  let rowsRead = 0;
  let failed = 0;
  let listed = 0;
  let errors: RowError[] = [];
  let lines: string[] = [];
  const reportError = (error: RowError) => {
    failed++;
    if (listed < MAX_LISTED_ERRORS) {
      listed++;
      errors.push(error);
    }
  };
  const encoder = new TextEncoder();
  const flush = async () => {
    while (ahead >= BATCHES_AHEAD) await once(written, 'written');
    ahead++;
    // Encoded here and handed over, not copied: the main thread writes the bytes as they are.
    const data = encoder.encode(lines.join(''));
    send({ type: 'batch', data, rows: lines.length, rowsRead, failed, errors }, [data.buffer]);
    lines = [];
    errors = [];
  };
  /** Converts one record; true when a batch is full. */
  const take = (record: string[], plan: readonly PlannedColumn[]): boolean => {
    rowsRead++;
    const line = toCopyLine(record, width, plan, rowsRead, reportError);
    if (line !== undefined) lines.push(line);
    return rowsRead % options.batchSize === 0;
  };
  /** The columns from the header and the sample; the sample's rows are converted once the table exists. */
  const plan = async (): Promise<PlannedColumn[]> => {
    if (!header) header = (sample[0] ?? []).map((_, i) => `column_${i + 1}`);
    width = header.length;
    const planned = planColumns(header, sample, options, setup.existing);
    send({ type: 'schema', columns: planned });
    await start;
    for (const record of sample) if (take(record, planned)) await flush();
    return planned;
  };

  for await (const { text, final } of texts()) {
    for (const record of records.push(text, final)) {
      if (columns) {
        if (take(record, columns)) await flush();
      } else if (!header && options.hasHeader) header = stripBom(record);
      else {
        sample.push(record);
        if (sample.length >= SAMPLE_ROWS) columns = await plan();
      }
    }
  }
  columns ??= await plan();
  if (lines.length > 0 || errors.length > 0 || rowsRead % options.batchSize !== 0 || rowsRead === 0) await flush();
  return { rowsRead, failed };
}

/**
 * A UTF-8 byte-order mark reaches the parser as part of the first header name; NUL characters (binary junk) are
 * dropped from names, since the names are stored as JSON and Postgres refuses \u0000 there.
 */
function stripBom(header: string[]): string[] {
  const names = header.map((name) => name.replaceAll('\u0000', ''));
  return names.length > 0 && names[0].startsWith('\uFEFF') ? [names[0].slice(1), ...names.slice(1)] : names;
}

/** One CSV line for COPY, or undefined after reporting why the record cannot be loaded. */
function toCopyLine(
  record: string[],
  width: number,
  columns: readonly PlannedColumn[],
  row: number,
  reportError: (e: RowError) => void,
): string | undefined {
  if (record.length !== width) {
    reportError({ row, column: null, value: null, message: `has ${record.length} fields, the header has ${width}` });
    return undefined;
  }
  const out: string[] = [];
  for (const column of columns) {
    const raw = record[column.index] ?? '';
    let value: string | null;
    try {
      if (raw.includes('\u0000')) throw new Error('contains a NUL character');
      if (column.part) {
        const sourceType = columns.find((c) => c.index === column.index && !c.calculated)?.type ?? 'timestamp';
        value = datePart(convert(raw, sourceType, column.order), column.part);
      } else value = convert(raw, column.type, column.order);
    } catch (error) {
      reportError({
        row,
        column: column.name,
        value: raw,
        message: `${JSON.stringify(raw)} ${(error as Error).message}`,
      });
      return undefined;
    }
    out.push(value === null ? '' : copyField(value));
  }
  return `${out.join(',')}\n`;
}

/** A CSV field for COPY: quoted only when it must be (empty text, a quote, the delimiter, a line break). */
function copyField(value: string): string {
  return value === '' || NEEDS_QUOTES.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}
const NEEDS_QUOTES = /[",\r\n\\]/;
