// Starting an import's parse worker (csv-worker.ts). A new thread has no TypeScript loader: registering tsx in it
// took 300 to 400 ms before the first row, each import. Instead its modules are bundled once per process by
// esbuild (the compiler tsx itself runs) into one script, and each worker starts from that in tens of ms.
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { build, stop } from 'esbuild';
import type { WorkerSetup } from './csv-worker-protocol.js';

const ENTRY = fileURLToPath(new URL('./csv-worker.ts', import.meta.url));
let script: Promise<string> | undefined;

/** Bundles the worker's code if not done yet; the server calls it at start so the first import does not wait. */
export function prepareParseWorker(): Promise<string> {
  script ??= build({
    entryPoints: [ENTRY],
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    write: false,
    logLevel: 'silent',
  })
    .then(
      (result) => result.outputFiles[0].text,
      (error: unknown) => {
        script = undefined; // tried again by the next import
        throw error;
      },
    )
    // esbuild's service process is not needed after this one build.
    .finally(() => {
      void stop();
    });
  return script;
}

export async function startParseWorker(setup: WorkerSetup): Promise<Worker> {
  // Without the server's --import tsx: the bundle is plain JavaScript.
  return new Worker(await prepareParseWorker(), { eval: true, workerData: setup, execArgv: [] });
}
