// Loads a CSV into the staging table: the bytes go to a parse worker (csv-worker.ts: parse, plan the columns from a
// sample, convert and validate each row; started by parse-worker.ts) and the binary COPY rows it sends back go into one
// COPY, batch by batch with backpressure at every step, reporting progress and row errors as it goes. This thread only
// moves bytes, so other requests stay responsive and parsing overlaps the database's work. Memory holds a few chunks
// and batches, whatever the file's size.
import { on, once } from 'node:events';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type postgres from 'postgres';
import { FunctionError, type FunctionErrorCode } from '../../errors.js';
import { quoteIdent } from '@auction-ops/database';
import type { PlannedColumn } from './column-plan.js';
import { BINARY_HEADER, BINARY_TRAILER } from './copy-binary.js';
import type { FromWorker, RowError, ToWorker, WorkerSetup } from './csv-worker-protocol.js';
import { type ClaimedDataset, createStagingTable } from './dataset-import.js';
import { detectDelimiter } from './csv-types.js';
import type { ImportOptions } from './import-options.js';
import { startParseWorker } from './parse-worker.js';

const ERRORS_PER_EVENT = 100;
/**
 * Chunks sent to the worker and not yet taken by its parser: up to 2 MB of upload, some 20 ms of the worker's work,
 * so a thread that waits for a core on a loaded machine does not leave the other idle (with 4, the bench's import
 * ran at 0.40 of COPY on average at load 5; with 32 and four batches ahead, 0.52).
 */
const CHUNKS_IN_FLIGHT = 32;

interface LoadEvents {
  schema(columns: readonly PlannedColumn[]): void;
  progress(p: {
    rows_read: number;
    rows_imported: number;
    rows_failed: number;
    batches: number;
    percent: number;
  }): void;
  rowErrors(errors: RowError[]): void;
}

interface LoadResult {
  columns: PlannedColumn[];
  imported: number;
  failed: number;
}

export async function loadCsv(
  ownerSql: postgres.Sql,
  dataset: ClaimedDataset,
  options: ImportOptions,
  source: Readable,
  totalBytes: number | null,
  events: LoadEvents,
): Promise<LoadResult> {
  const { head, rest } = await peek(source, 64 * 1024);
  const setup: WorkerSetup = {
    delimiter: options.delimiter ?? detectDelimiter(head.toString('utf8')),
    options,
    existing: dataset.columns,
  };
  const worker = await startParseWorker(setup);
  const post = (m: ToWorker) => worker.postMessage(m);
  // Ends the message loop below when the upload fails (size limit, client gone) or the worker dies.
  const stop = new AbortController();
  let failure: unknown;
  const fail = (error: unknown) => {
    failure ??= error;
    stop.abort();
  };
  // A worker that dies (out of memory, a bug) fails this import with an error answer; never the process.
  worker.on('error', fail);
  worker.once('exit', (code) => fail(new Error(`the import's parse worker stopped (exit code ${code})`)));
  let bytesSent = 0;
  let credits = CHUNKS_IN_FLIGHT;
  const credit = new EventTarget();
  const send = async (data: Buffer) => {
    while (credits === 0) await once(credit, 'credit', { signal: stop.signal });
    credits--;
    bytesSent += data.length;
    post({ type: 'chunk', data });
  };
  const feed = async () => {
    if (head.length > 0) await send(head);
    for await (const data of rest) await send(data as Buffer);
    post({ type: 'end' });
  };
  feed().catch(fail);

  let conn: postgres.ReservedSql | undefined;
  let copy: CopyTarget | undefined;
  try {
    let columns: PlannedColumn[] = [];
    let imported = 0;
    let batches = 0;
    for await (const [message] of on(worker, 'message', { signal: stop.signal })) {
      const m = message as FromWorker;
      if (m.type === 'consumed') {
        credits++;
        credit.dispatchEvent(new Event('credit'));
      } else if (m.type === 'schema') {
        columns = m.columns;
        events.schema(columns);
        await createStagingTable(ownerSql, dataset, columns);
        // COPY on a connection of its own: on a pooled one, other work (the realtime heartbeat) was queued behind
        // the COPY and stalled both.
        conn = await ownerSql.reserve();
        copy = await openCopy(conn, dataset, columns);
        post({ type: 'start' });
      } else if (m.type === 'batch') {
        batches++;
        if (!copy) throw new Error('a batch came before the schema');
        if (copy.errored) throw copy.errored;
        const data = Buffer.from(m.data.buffer, m.data.byteOffset, m.data.byteLength);
        if (data.length > 0 && !copy.stream.write(data)) await once(copy.stream, 'drain');
        post({ type: 'written' });
        imported += m.rows;
        for (let i = 0; i < m.errors.length; i += ERRORS_PER_EVENT)
          events.rowErrors(m.errors.slice(i, i + ERRORS_PER_EVENT));
        const percent = totalBytes ? Math.min(99, Math.floor((bytesSent / totalBytes) * 100)) : 0;
        events.progress({ rows_read: m.rowsRead, rows_imported: imported, rows_failed: m.failed, batches, percent });
      } else if (m.type === 'done') {
        if (!copy) throw new Error('the import ended before the schema');
        copy.stream.end(BINARY_TRAILER);
        await copy.finished;
        return { columns, imported, failed: m.failed };
      } else throw m.code ? new FunctionError(m.code as FunctionErrorCode, m.message, m.details) : new Error(m.message);
    }
    throw new Error('the parse worker ended without an answer');
  } catch (error) {
    // The upload's own error (size limit, a broken body) explains an aborted loop better than the abort does.
    const cause = stop.signal.aborted && failure !== undefined ? failure : error;
    // Ends the COPY with CopyFail, so the connection is usable again when it goes back to the pool.
    copy?.stream.destroy(cause as Error);
    throw cause;
  } finally {
    stop.abort();
    rest.destroy();
    await worker.terminate();
    conn?.release();
  }
}

async function openCopy(conn: postgres.ReservedSql, dataset: ClaimedDataset, columns: readonly PlannedColumn[]) {
  const names = columns.map((c) => quoteIdent(c.name)).join(', ');
  const target = `reporting_data.${quoteIdent(dataset.staging)} (${names})`;
  const stream = await conn.unsafe(`copy ${target} from stdin with (format binary)`).writable();
  // Listened to from the start: a COPY that fails between two writes must not be an unheard 'error' event.
  const done = finished(stream);
  done.catch(() => {});
  stream.write(BINARY_HEADER);
  return {
    stream,
    finished: done,
    get errored() {
      return stream.errored;
    },
  };
}

/** Reads at least `size` bytes (or all) for sniffing; `rest` is the source, at the bytes after them. */
async function peek(source: Readable, size: number): Promise<{ head: Buffer; rest: Readable }> {
  const head: Buffer[] = [];
  let length = 0;
  for await (const chunk of source.iterator({ destroyOnReturn: false })) {
    const data = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    head.push(data);
    length += data.length;
    if (length >= size) break;
  }
  return { head: Buffer.concat(head), rest: source };
}

type CopyTarget = Awaited<ReturnType<typeof openCopy>>;
