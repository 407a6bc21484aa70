// Serving HTTPS on the listen port: HTTP/2 and HTTP/1.1 on one TLS server (ALPN picks), the certificate re-read on
// SIGHUP for new connections while open ones continue, and a drain that lets in-flight requests finish.
import { readFileSync } from 'node:fs';
import { createServer as createPlainServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { createSecureServer, type Http2SecureServer, type Http2Session } from 'node:http2';
import type { TLSSocket } from 'node:tls';
import type { Config } from '@auction-ops/server-config';
import type { Logger } from '../logger.js';

/** Options for @hono/node-server's serve(): none for plain HTTP. */
export function secureServeOptions(config: Config): {
  createServer?: typeof createSecureServer;
  serverOptions?: Record<string, unknown>;
} {
  if (!config.TLS_CERT_FILE || !config.TLS_KEY_FILE) return {};
  return {
    createServer: createSecureServer,
    serverOptions: { ...readKeyPair(config), allowHTTP1: true },
  };
}

function readKeyPair(config: Config): { cert: Buffer; key: Buffer } {
  return { cert: readFileSync(config.TLS_CERT_FILE!), key: readFileSync(config.TLS_KEY_FILE!) };
}

/**
 * Plain HTTP sent to the TLS port gets an answer instead of a dropped connection: the first byte of a connection
 * tells a TLS handshake (0x16) from a plain request, which goes to the same app on a plain HTTP parser (where the
 * HTTPS-only rule answers 426, /health excepted) and is closed after one response.
 */
export function answerPlainHttpOnTlsPort(server: Http2SecureServer): void {
  const tlsListeners = server.listeners('connection') as Array<(socket: Socket) => void>;
  const app = server.listeners('request')[0] as (req: IncomingMessage, res: ServerResponse) => void;
  const plain = createPlainServer((req, res) => {
    res.shouldKeepAlive = false;
    app(req, res);
  });
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    // A connection that never sends a byte must not stay open: the TLS handshake timeout only starts later.
    socket.setTimeout(10_000, () => socket.destroy());
    socket.once('readable', () => {
      socket.setTimeout(0);
      const first: Buffer | null = socket.read(1);
      if (!first) return void socket.destroy();
      socket.unshift(first);
      if (first[0] === 0x16) for (const listener of tlsListeners) listener.call(server, socket);
      else plain.emit('connection', socket);
    });
  });
}

export function isSecureServer(server: unknown): server is Http2SecureServer {
  return typeof (server as Http2SecureServer).setSecureContext === 'function';
}

/**
 * Re-reads TLS_CERT_FILE and TLS_KEY_FILE on SIGHUP (a renewed certificate); connections already open keep the
 * context they started with. A pair that does not load is logged and the old one stays. Returns the unsubscribe.
 */
export function reloadOnSighup(server: Http2SecureServer, config: Config, log: Logger): () => void {
  const reload = () => {
    try {
      server.setSecureContext(readKeyPair(config));
      log.info('TLS certificate reloaded', { cert_file: config.TLS_CERT_FILE });
    } catch (error) {
      log.error('TLS certificate reload failed; keeping the previous one', { error: (error as Error).message });
    }
  };
  process.on('SIGHUP', reload);
  return () => void process.off('SIGHUP', reload);
}

/**
 * Follows the TLS server's connections so shutdown can drain them: HTTP/2 sessions get a GOAWAY (streams in flight
 * finish), HTTP/1.1 sockets close as soon as they are idle. A secure HTTP/2 server has no closeIdleConnections().
 */
export function trackSecureConnections(server: Http2SecureServer): { closeIdle(): void; closeAll(): void } {
  const sessions = new Set<Http2Session>();
  const sockets = new Map<TLSSocket, number>();
  let closing = false;
  server.on('session', (session: Http2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
    if (closing) session.close();
  });
  server.on('secureConnection', (socket: TLSSocket) => {
    if (socket.alpnProtocol === 'h2') return;
    sockets.set(socket, 0);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('request', (req: { socket: TLSSocket }, res: { once(e: string, f: () => void): void }) => {
    const socket = req.socket;
    if (!sockets.has(socket)) return;
    sockets.set(socket, (sockets.get(socket) ?? 0) + 1);
    res.once('close', () => {
      const left = (sockets.get(socket) ?? 1) - 1;
      sockets.set(socket, left);
      if (closing && left === 0) socket.end();
    });
  });
  return {
    closeIdle() {
      closing = true;
      for (const session of sessions) session.close();
      for (const [socket, active] of sockets) if (active === 0) socket.end();
    },
    closeAll() {
      for (const session of sessions) session.destroy();
      for (const socket of sockets.keys()) socket.destroy();
    },
  };
}

/** Stops accepting, lets in-flight requests finish (up to 10 s), then closes what remains. Plain or TLS. */
export function drainServer(server: Server | Http2SecureServer, tracked?: ReturnType<typeof trackSecureConnections>) {
  return new Promise<void>((resolve) => {
    const plain = isSecureServer(server) ? undefined : (server as Server);
    const force = setTimeout(() => (plain ? plain.closeAllConnections() : tracked?.closeAll()), 10_000);
    // From now on HTTP/1.1 answers close their connection: a keep-alive client would otherwise go on sending new
    // requests on it until the deadline cut them off (HTTP/2 sessions get a GOAWAY instead).
    (server as Server).prependListener('request', (req, res) => {
      if (req.httpVersionMajor === 1 && !res.headersSent) res.setHeader('connection', 'close');
    });
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    if (plain) plain.closeIdleConnections();
    else tracked?.closeIdle();
  });
}
