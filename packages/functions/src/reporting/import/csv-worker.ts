// An import's parse worker (a worker thread): reads the CSV bytes the main thread sends, converts them
// (csv-to-copy.ts) and sends binary COPY rows back one batch at a time, at most four ahead of what COPY has taken.
// Parsing and conversion are nearly all of an import's CPU; here they do not stall other requests.
import { once } from 'node:events';
import { parentPort, workerData } from 'node:worker_threads';
import { FunctionError } from '../../errors.js';
import type { FromWorker, ToWorker, WorkerSetup } from './csv-worker-protocol.js';
import { CsvToCopy } from './csv-to-copy.js';

/** Batches converted and not yet written to COPY (csv-loader.ts says why four). */
const BATCHES_AHEAD = 4;

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

const EMPTY = new Uint8Array(0);

/** The upload's chunks in order; the last is empty and final. */
async function* chunks(): AsyncGenerator<{ data: Uint8Array; final: boolean }> {
  for (;;) {
    while (inbox.length === 0) await once(arrived, 'arrived');
    const data = inbox.shift() as Uint8Array | null;
    if (data === null) {
      yield { data: EMPTY, final: true };
      return;
    }
    send({ type: 'consumed' });
    yield { data, final: false };
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
  const conversion = new CsvToCopy(setup, {
    async planned(columns) {
      send({ type: 'schema', columns });
      await start;
    },
    async batch(batch) {
      while (ahead >= BATCHES_AHEAD) await once(written, 'written');
      ahead++;
      // Handed over, not copied: the main thread writes the bytes as they are.
      send({ type: 'batch', ...batch }, [batch.data.buffer as ArrayBuffer]);
    },
  });
  for await (const { data, final } of chunks()) await conversion.push(data, final);
  return { rowsRead: conversion.rowsRead, failed: conversion.failed };
}
