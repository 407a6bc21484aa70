// What route modules and workers receive from the server: configuration, database pools, keys, logging.
import type postgres from 'postgres';
import type { AvailabilityMonitor, DiskFloor, ReplicaSet } from '@auction-ops/database';
import type { Claims, TokenError, TokenVerifier } from '@auction-ops/auth-core';
import type { Config } from '@auction-ops/server-config';
import type { Logger } from './logger.js';
import type { ServerMetrics } from '@auction-ops/observability';
import type { Tracing } from '@auction-ops/observability/tracing';

export interface ServerContext {
  config: Config;
  log: Logger;
  jwtSecret: string;
  anonKey: string;
  serviceRoleKey: string;
  /** Verifies access tokens and API keys (HS256 with JWT_SECRET), cached until expiry. */
  verifier: TokenVerifier;
  /** Request pool: logs in as authenticator; every transaction sets its role and claims first. */
  sql: postgres.Sql;
  /** Owner pool: migrations, maintenance and background workers that must bypass request roles. */
  ownerSql: postgres.Sql;
  /**
   * Owner connections that serve requests (auth, rate limits): each statement is bounded by DB_STATEMENT_TIMEOUT_MS,
   * as the request pool's are (the authenticator's default), where `ownerSql`'s long maintenance is not.
   */
  ownerRequestSql: postgres.Sql;
  /** Read replicas (DATABASE_READ_URLS) for GET/HEAD on /rest/v1; hands out `sql` when none is configured or up. */
  replicas: ReplicaSet;
  /** Whether the primary answers, checked in the background (the 503 gate and /health read it). */
  database: AvailabilityMonitor;
  /** DATA_DIR's free-space floor (DISK_FREE_FLOOR_MB): uploads, CSV imports and local backups ask it first. */
  diskFloor: DiskFloor;
  ownerUrl: string;
  requestUrl: string;
  /** This process's metric registry; services record into it where the work happens (docs/observability.md). */
  metrics?: ServerMetrics;
  /** OpenTelemetry tracing, when an OTLP endpoint is configured; background jobs run under `traceJob`. */
  tracing?: Tracing;
}

/** Hono variables set by the gateway middleware; bindings given by @hono/node-server (absent in app.request()). */
export interface AppEnv {
  Bindings: {
    incoming?: import('node:http').IncomingMessage;
    outgoing?: import('node:http').ServerResponse;
    /** Set only for a WebSocket upgrade request: hands the connection to realtime once the gateway let it pass. */
    realtimeUpgrade?: (context: import('@auction-ops/realtime').UpgradeContext) => void;
  };
  Variables: {
    requestId: string;
    /** Claims of the Bearer token, else of the API key; absent when the token failed (see authError). */
    claims?: Claims;
    /** Why the Authorization token was refused; each path family renders it in its own error shape. */
    authError?: TokenError;
    /** Role of the API key that passed the gate. */
    apikeyRole?: 'anon' | 'service_role';
    /** Client IP: the socket's, or the one a trusted proxy forwarded. */
    clientIp: string;
    /** The REST engine's Server-Timing value, for the request's trace (observability's SERVER_TIMING key). */
    serverTiming?: string;
    /** The gateway's response headers (request id, CORS) until a route or the gateway adds them (response-headers.ts). */
    gatewayHeaders?: import('./middleware/gateway-headers.js').GatewayHeaders;
  };
}

/** A background worker (webhook dispatcher, scheduler). */
export interface Worker {
  name: string;
  stop(): Promise<void>;
}
