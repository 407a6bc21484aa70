// Starting an import's parse worker (csv-worker.ts). A new thread has no TypeScript loader: registering tsx in it
// took 300 to 400 ms before the first row, each import. Instead its modules are bundled once per process by
// esbuild (the compiler tsx itself runs) into one script, and each worker starts from that in tens of ms.
// The installed npm package (`pnpm pack:server`) ships that script built beforehand beside this module, and no esbuild.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { WorkerSetup } from './csv-worker-protocol.js';

const ENTRY = fileURLToPath(new URL('./csv-worker.ts', import.meta.url));
const PREBUILT = new URL('./csv-worker.prebuilt.cjs', import.meta.url);
let script: Promise<string> | undefined;

/** The worker's code as one CommonJS script. */
export async function bundleParseWorker(): Promise<string> {
  const { build, stop } = await import('esbuild');
  try {
    const result = await build({
      entryPoints: [ENTRY],
      bundle: true,
      format: 'cjs',
      platform: 'node',
      target: 'node20',
      write: false,
      logLevel: 'silent',
    });
    return result.outputFiles[0].text;
  } finally {
    // esbuild's service process is not needed after this one build.
    void stop();
  }
}

/** Bundles the worker's code if not done yet; the server calls it at start so the first import does not wait. */
export function prepareParseWorker(): Promise<string> {
  script ??= (existsSync(PREBUILT) ? readFile(PREBUILT, 'utf8') : bundleParseWorker()).catch((error: unknown) => {
    script = undefined; // tried again by the next import
    throw error;
  });
  return script;
}

export async function startParseWorker(setup: WorkerSetup): Promise<Worker> {
  // Without the server's --import tsx: the bundle is plain JavaScript.
  return new Worker(await prepareParseWorker(), { eval: true, workerData: setup, execArgv: [] });
}
