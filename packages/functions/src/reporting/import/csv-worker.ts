// An import's parse worker (a worker thread): reads the CSV bytes the main thread sends, plans the columns from a
// sample, converts and validates every row and sends COPY text back one batch at a time, at most two ahead of what
// COPY has taken. Conversion is the larger half of an import's CPU; here it no longer stalls other requests.
import { once } from 'node:events';
import { Readable } from 'node:stream';
import { parentPort, workerData } from 'node:worker_threads';
import Papa from 'papaparse';
import { FunctionError } from '../../errors.js';
import { type PlannedColumn, planColumns } from './column-plan.js';
import type { FromWorker, RowError, ToWorker, WorkerSetup } from './csv-worker-protocol.js';
import { convert, datePart } from './csv-types.js';

const SAMPLE_ROWS = 2000;
const MAX_LISTED_ERRORS = 1000;
const BATCHES_AHEAD = 2;

const port = parentPort;
if (!port) throw new Error('csv-worker runs as a worker thread');
const setup = workerData as WorkerSetup;
const send = (message: FromWorker) => port.postMessage(message);

// The bytes from the main thread, acknowledged as the parser takes them (its backpressure becomes the sender's).
let owed = 0;
const input = new Readable({
  read() {
    for (; owed > 0; owed--) send({ type: 'consumed' });
  },
});
let started: () => void = () => {};
const start = new Promise<void>((resolve) => {
  started = resolve;
});
let ahead = 0;
const written = new EventTarget();
port.on('message', (m: ToWorker) => {
  if (m.type === 'chunk') {
    if (input.push(m.data)) send({ type: 'consumed' });
    else owed++;
  } else if (m.type === 'end') input.push(null);
  else if (m.type === 'start') started();
  else {
    ahead--;
    written.dispatchEvent(new Event('written'));
  }
});

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
  const parser = Papa.parse(Papa.NODE_STREAM_INPUT, { delimiter: setup.delimiter, skipEmptyLines: true });
  input.pipe(parser);
  const records = parser[Symbol.asyncIterator]() as AsyncIterator<string[]>;
  let header: string[] | undefined;
  const sample: string[][] = [];
  for (let next = await records.next(); !next.done; next = await records.next()) {
    if (!header && options.hasHeader) header = stripBom(next.value);
    else sample.push(next.value);
    if (sample.length >= SAMPLE_ROWS) break;
  }
  if (!header) header = (sample[0] ?? []).map((_, i) => `column_${i + 1}`);
  const width = header.length;
  const columns = planColumns(header, sample, options, setup.existing);
  send({ type: 'schema', columns });
  await start;

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
  const flush = async () => {
    while (ahead >= BATCHES_AHEAD) await once(written, 'written');
    ahead++;
    send({ type: 'batch', text: lines.join(''), rows: lines.length, rowsRead, failed, errors });
    lines = [];
    errors = [];
  };
  const take = async (record: string[]) => {
    rowsRead++;
    const line = toCopyLine(record, width, columns, rowsRead, reportError);
    if (line !== undefined) lines.push(line);
    if (rowsRead % options.batchSize === 0) await flush();
  };
  for (const record of sample) await take(record);
  for (let next = await records.next(); !next.done; next = await records.next()) await take(next.value);
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
