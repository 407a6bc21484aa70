// The last guard of a serving process: an error that escapes every handler (an 'error' event nobody listens to, a
// rejected promise nobody awaits) is logged and counted, and the request it belongs to, when known, gets a 500 and
// its connection closed. The process and every other request in flight go on.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ServerResponse } from 'node:http';
import type { Logger } from '../logger.js';
import { countFault } from '../process-faults.js';

const requestScope = new AsyncLocalStorage<ServerResponse>();
let installed = false;

/** Runs the handling of one request so that an error escaping from it can be tied back to its response. */
export function inRequestScope<T>(res: ServerResponse | undefined, handle: () => T): T {
  return res ? requestScope.run(res, handle) : handle();
}

/** Installs the guard once per process (never in tests running servers in process: it would hide their errors). */
export function installLastGuard(log: Logger): void {
  if (installed) return;
  installed = true;
  process.on('uncaughtException', (error) => escaped(log, 'uncaught exception', error));
  process.on('unhandledRejection', (reason) => escaped(log, 'unhandled rejection', reason));
}

function escaped(log: Logger, kind: string, reason: unknown): void {
  countFault('escapedErrors');
  const error = reason instanceof Error ? reason : new Error(String(reason));
  const res = requestScope.getStore();
  log.error('escaped error caught; the process goes on', {
    kind,
    error: error.message,
    stack: error.stack,
    ...(res?.req ? { method: res.req.method, path: (res.req.url ?? '').split('?')[0] } : {}),
  });
  if (!res || res.writableEnded) return;
  if (!res.headersSent) {
    res.writeHead(500, { 'content-type': 'application/json', connection: 'close' });
    res.end(JSON.stringify({ message: 'internal server error' }));
  } else res.destroy();
}
