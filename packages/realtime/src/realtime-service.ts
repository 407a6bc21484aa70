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
import { ConnectionLeases } from './connection-leases.js';
import { HttpBroadcaster, type HttpBroadcastRequest, type HttpBroadcastResult } from './http-broadcast.js';
import { MessageStore, type RetentionLimits } from './message-store.js';
import { parseVsn, type Vsn } from './protocol.js';
import { reasons } from './realtime-errors.js';
import { RealtimeHub, type Log, type RealtimeLimits } from './realtime-hub.js';
import { Relay } from './relay.js';
import { SocketSession } from './socket-session.js';
import type { PublicChannels } from './topic-authorization.js';

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
  /** How long and how many stored (persisted) broadcasts are kept for replay. */
  retention: RetentionLimits;
  /** Who may join public channels (REALTIME_PUBLIC_CHANNELS). */
  publicChannels: PublicChannels;
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
  /** POST /realtime/v1/api/broadcast (and its per-topic form): broadcasts sent over HTTP. */
  broadcastOverHttp(request: HttpBroadcastRequest): Promise<HttpBroadcastResult>;
  /** This process's connections, joined channels and frames sent and received so far (for metrics). */
  stats(): RealtimeStats;
}

export interface RealtimeStats {
  connections: number;
  channels: number;
  framesSent: number;
  framesReceived: number;
}

const STATUS_TEXT: Record<number, string> = { 429: 'Too Many Requests', 503: 'Service Unavailable' };

export function createRealtimeService(options: RealtimeOptions): RealtimeService {
  const instanceId = `${process.pid}-${randomBytes(6).toString('hex')}`;
  const sessions = new Set<SocketSession>();
  const leases = new ConnectionLeases(options.ownerSql, instanceId, options.limits.connectionsPerIp);
  /** Leases of this process's open connections, by id: their client addresses. */
  const held = new Map<string, string>();
  const store = new MessageStore(options.ownerSql, options.retention, options.log);
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
    onRevived: () => leases.restore(held),
  });
  const hub = new RealtimeHub(options.limits, options.log, options.publicChannels, {
    sql: options.sql,
    verifier: options.verifier,
    router,
    capture,
    relay,
    store,
  });
  const httpBroadcaster = new HttpBroadcaster(hub, store);
  // Frames past the payload limit (plus room for the envelope) close the connection (1009) before parsing.
  const wss = new WebSocketServer({ noServer: true, maxPayload: options.limits.maxPayloadBytes + 64 * 1024 });
  const idleTimeoutMs = options.idleTimeoutMs ?? 60_000;
  let idleTimer: NodeJS.Timeout | undefined;

  function refuse(socket: Duplex, status: number, message: string): void {
    const body = JSON.stringify({ message });
    const head = [
      `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Bad Request'}`,
      'Content-Type: application/json',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Connection: close',
    ];
    socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
  }

  // The lease is released once, whichever ends first: the socket before the upgrade, or the WebSocket.
  function accept(
    req: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    vsn: Vsn,
    context: UpgradeContext,
    lease: string,
  ) {
    held.set(lease, context.clientIp);
    const release = () => {
      if (!held.delete(lease)) return;
      leases.release(lease).catch((error: Error) => {
        options.log('warn', 'realtime: connection lease not released', { error: error.message });
      });
    };
    if (socket.destroyed) return release();
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
  }

  return {
    async start() {
      await relay.start();
      await router.start();
      await capture.start();
      await store.start();
      idleTimer = setInterval(() => {
        const now = Date.now();
        for (const s of sessions) if (s.idleFor(now) > idleTimeoutMs) s.close(1000, 'heartbeat timeout');
      }, idleTimeoutMs / 4);
      idleTimer.unref();
    },
    async stop() {
      clearInterval(idleTimer);
      store.stop();
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
      void leases.acquire(context.clientIp).then(
        (lease) => {
          if (!lease) return refuse(socket, 429, reasons.tooManyConnections(options.limits.connectionsPerIp));
          accept(req, socket, head, vsn, context, lease);
        },
        (error: Error) => {
          options.log('error', 'realtime: connection lease failed', { error: error.message });
          refuse(socket, 503, reasons.unavailable);
        },
      );
    },
    broadcastOverHttp: (request) => httpBroadcaster.send(request),
    stats() {
      let channels = 0;
      for (const s of sessions) channels += s.channelCount;
      return { connections: sessions.size, channels, framesSent: hub.frames.sent, framesReceived: hub.frames.received };
    },
  };
}
