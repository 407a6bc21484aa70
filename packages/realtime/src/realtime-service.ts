// The realtime service of one process: WebSocket connections on the HTTP server's upgrade path, change capture,
// the change router and the relay to other instances, started and stopped together.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type postgres from 'postgres';
import { WebSocketServer } from 'ws';
import type { Claims, TokenVerifier } from '@auction-ops/auth-core';
import { createChangeCapture, type ChangeCapture } from './change-capture.js';
import { ChangeRouter } from './change-router.js';
import { parseVsn } from './protocol.js';
import { reasons } from './realtime-errors.js';
import { RealtimeHub, type Log, type RealtimeLimits } from './realtime-hub.js';
import { Relay } from './relay.js';
import { SocketSession } from './socket-session.js';

export interface RealtimeOptions {
  /** Request pool (authenticator): authorization of changes and private topics under RLS. */
  sql: postgres.Sql;
  /** Owner pool: shared instance state and LISTEN/NOTIFY. */
  ownerSql: postgres.Sql;
  /** Owner URL for the replication connection. */
  ownerUrl: string;
  verifier: TokenVerifier;
  limits: RealtimeLimits;
  log: Log;
  /** A connection that sends nothing, not even heartbeats (every 25 s from realtime-js), for this long is closed. */
  idleTimeoutMs?: number;
}

export interface UpgradeContext {
  /** Claims of the API key that passed the gateway. */
  apiKeyClaims: Claims;
  clientIp: string;
}

export interface RealtimeService {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Takes over an upgrade request for /realtime/v1/websocket that passed the gateway. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, context: UpgradeContext): void;
}

export function createRealtimeService(options: RealtimeOptions): RealtimeService {
  const instanceId = `${process.pid}-${randomBytes(6).toString('hex')}`;
  const sessions = new Set<SocketSession>();
  const perIp = new Map<string, number>();
  const router = new ChangeRouter({ sql: options.sql, log: options.log });
  const capture: ChangeCapture = createChangeCapture({
    url: options.ownerUrl,
    sql: options.ownerSql,
    log: options.log,
    onTransaction: (changes) => router.onTransaction(changes),
    onReset: () => {
      router.reset();
      for (const s of sessions) s.captureLost();
    },
  });
  const relay = new Relay({
    sql: options.ownerSql,
    instanceId,
    log: options.log,
    onMessage: (message) => hub.received(message),
  });
  const hub = new RealtimeHub(options.limits, options.log, {
    sql: options.sql,
    verifier: options.verifier,
    router,
    capture,
    relay,
  });
  // Frames past the payload limit (plus room for the envelope) close the connection (1009) before parsing.
  const wss = new WebSocketServer({ noServer: true, maxPayload: options.limits.maxPayloadBytes + 64 * 1024 });
  const idleTimeoutMs = options.idleTimeoutMs ?? 60_000;
  let idleTimer: NodeJS.Timeout | undefined;

  function refuse(socket: Duplex, status: number, message: string): void {
    const body = JSON.stringify({ message });
    const head = [
      `HTTP/1.1 ${status} ${status === 429 ? 'Too Many Requests' : 'Bad Request'}`,
      'Content-Type: application/json',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Connection: close',
    ];
    socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
  }

  return {
    async start() {
      await relay.start();
      await router.start();
      await capture.start();
      idleTimer = setInterval(() => {
        const now = Date.now();
        for (const s of sessions) if (s.idleFor(now) > idleTimeoutMs) s.close(1000, 'heartbeat timeout');
      }, idleTimeoutMs / 4);
      idleTimer.unref();
    },
    async stop() {
      clearInterval(idleTimer);
      // Clients reconnect elsewhere (or here after a restart) and rejoin: changes still queued are not theirs.
      for (const s of sessions) s.close(1001, 'server shutting down');
      router.stop();
      await Promise.allSettled([capture.stop(), relay.stop()]);
      wss.close();
    },
    handleUpgrade(req, socket, head, context) {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const vsn = parseVsn(url.searchParams.get('vsn'));
      if (!vsn) return refuse(socket, 400, 'Unsupported vsn: use 1.0.0 or 2.0.0');
      const count = perIp.get(context.clientIp) ?? 0;
      if (count >= options.limits.connectionsPerIp)
        return refuse(socket, 429, reasons.tooManyConnections(options.limits.connectionsPerIp));
      perIp.set(context.clientIp, count + 1);
      let counted = true;
      const release = () => {
        if (!counted) return;
        counted = false;
        const left = (perIp.get(context.clientIp) ?? 1) - 1;
        if (left > 0) perIp.set(context.clientIp, left);
        else perIp.delete(context.clientIp);
      };
      socket.once('close', release);
      wss.handleUpgrade(req, socket, head, (ws) => {
        const session = new SocketSession(ws, vsn, context.apiKeyClaims, hub);
        sessions.add(session);
        ws.on('close', () => {
          sessions.delete(session);
          session.closed();
          release();
        });
        ws.on('error', () => ws.terminate());
      });
    },
  };
}
