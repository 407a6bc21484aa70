// Watches each request body on the socket: a body that sends nothing for BODY_IDLE_TIMEOUT_MS while the server
// waits for it (a slow drip) is closed, and a client that closes mid-body is logged at info as a closed request
// (method, path, bytes read), not as an error. Closing the request makes the body stream fail, so whatever reads
// it (an import, an upload) fails and cleans up. An answer sent before the body was read closes its connection
// without a reset (rest-engine's lingering close, which its node adapter uses too).
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { lingerOnEarlyClose } from '@auction-ops/rest-engine';
import type { Logger } from '../logger.js';
import { countFault } from '../process-faults.js';

class BodyIdleError extends Error {
  override name = 'BodyIdleError';
}

export function watchRequestBodies(server: Server, options: { idleMs: number; log: Logger }): void {
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'GET' || req.method === 'HEAD' || req.complete) return;
    watch(req, res, options);
    lingerOnEarlyClose(req);
  });
}

function watch(req: IncomingMessage, res: ServerResponse, { idleMs, log }: { idleMs: number; log: Logger }): void {
  // Progress is read off the connection's byte count, never by listening to 'data': under HTTP/2 `req.socket` hands
  // listeners to the request's own stream, and a 'data' listener there would consume the body before its reader.
  // (Under HTTP/2 the count is the whole connection's, so another busy stream keeps a dripping one alive.)
  const socket = req.socket;
  const start = socket.bytesRead ?? 0;
  let seen = start;
  let idled = false;
  const timer = setTimeout(function check() {
    // All of it arrived, or bytes wait for the server to read them: the server is the slow one, not the client.
    if (req.complete) return;
    const now = socket.bytesRead ?? seen;
    if (now !== seen || req.readableLength > 0) {
      seen = now;
      timer.refresh();
      return;
    }
    idled = true;
    countFault('bodyIdleTimeouts');
    log.info('request body idle; closed', {
      method: req.method,
      path: pathOf(req),
      bytes_read: seen - start,
      idle_ms: idleMs,
    });
    req.destroy(new BodyIdleError(`no request body bytes for ${idleMs} ms`));
  }, idleMs);
  timer.unref();
  req.once('end', () => clearTimeout(timer));
  req.once('close', () => {
    clearTimeout(timer);
    // Only a broken connection makes Node fail the request with ECONNRESET; a request the server itself destroyed
    // (a refused body whose unread rest was dropped) has no error, and one answered in full is no abort.
    const reset = (req.errored as { code?: string } | null)?.code === 'ECONNRESET';
    if (req.complete || idled || !reset || res.writableFinished) return;
    countFault('clientAborts');
    log.info('request closed by client', {
      method: req.method,
      path: pathOf(req),
      bytes_read: (socket.bytesRead ?? seen) - start,
    });
  });
}

/** The path without the query string (it can carry an apikey). */
function pathOf(req: IncomingMessage): string {
  return (req.url ?? '').split('?')[0];
}

/**
 * Whether an error is the request body breaking off: the client closed mid-body (Node's `aborted`, ECONNRESET) or
 * the idle timeout closed it. The body watch has logged it at info; the error handlers must not log it again as a
 * server failure.
 */
export function isBodyBreakOff(error: unknown): boolean {
  const e = error as { code?: string; message?: string; cause?: unknown } | undefined;
  if (!e) return false;
  if (error instanceof BodyIdleError || (e.code === 'ECONNRESET' && e.message === 'aborted')) return true;
  return e.cause !== undefined && e.cause !== error && isBodyBreakOff(e.cause);
}
