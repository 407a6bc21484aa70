// An answer sent before its request body was read (a 413 from the declared Content-Length, any early refusal) on a
// connection that then closes: Node closes the socket as soon as the answer is written, while the client is still
// sending. Closing a socket with unread bytes makes the kernel send a reset, and a reset that reaches the client
// before it has read the answer throws the answer away: a client that writes its whole body before reading (most
// do) sees a broken connection instead of the 413. So such a connection closes the way web servers' "lingering
// close" does: our side is half-closed after the answer, and the rest of the body is read and dropped until the
// client has sent it all, within bounds of time, idleness and bytes; then the socket closes cleanly.
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** A closing connection keeps reading for at most this long in all, this long without bytes, this many bytes. */
const LINGER = { maxMs: 5_000, idleMs: 1_000, maxBytes: 64 * 1024 * 1024 };

const CHECK_MS = 100;
/** The request each wrapped socket serves now (HTTP/1 serves one at a time). */
const current = new WeakMap<Socket, IncomingMessage>();

/**
 * Makes the close that follows this request's answer linger while the request's body is still arriving, so that a
 * client sending its whole body before reading gets the answer (a 413, any early refusal) instead of a reset. The
 * node handler calls it for every request with a body; a node:http host of its own can call it on any request.
 * Node's HTTP/1 server ends a connection that will not be kept alive with `socket.destroySoon()`; that is wrapped
 * once per socket.
 */
export function lingerOnEarlyClose(req: IncomingMessage): void {
  const socket = req.socket as Socket & { destroySoon?: () => void };
  // HTTP/2 requests share their session's socket: their streams end on their own.
  if (req.httpVersionMajor !== 1 || typeof socket.destroySoon !== 'function') return;
  const wrapped = current.has(socket);
  current.set(socket, req);
  if (wrapped) return;
  const destroySoon = socket.destroySoon;
  socket.destroySoon = function lingeringDestroySoon(this: Socket) {
    // Node has by now told the request to drop what arrives (`req._dump()`); it is this socket's last request.
    const last = current.get(socket);
    if (!last || last.complete || socket.destroyed) return destroySoon.call(this);
    socket.end();
    const start = Date.now();
    const startBytes = socket.bytesRead;
    let seen = startBytes;
    let lastProgress = start;
    const check = setInterval(() => {
      const now = Date.now();
      if (socket.bytesRead !== seen) {
        seen = socket.bytesRead;
        lastProgress = now;
      }
      if (now - start > LINGER.maxMs || now - lastProgress > LINGER.idleMs || seen - startBytes > LINGER.maxBytes) {
        clearInterval(check);
        socket.destroy();
      }
    }, CHECK_MS);
    check.unref();
    last.once('end', () => {
      clearInterval(check);
      if (!socket.destroyed) destroySoon.call(socket);
    });
    socket.once('close', () => clearInterval(check));
  };
}
