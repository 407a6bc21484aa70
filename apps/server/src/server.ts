// Starts the whole service: database (embedded or external), migrations, pools, HTTP server and workers,
// and stops them in order: stop accepting, drain in-flight requests, stop workers, close pools, stop Postgres.
// The two halves are apart so a cluster's primary prepares the database once and each worker serves on it.
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import postgres from 'postgres';
import {
  authenticatorUrl,
  createReplicaSet,
  findFreePort,
  prepareDatabase,
  reconnectBackoff,
  startAvailabilityMonitor,
} from '@auction-ops/database';
import { createTokenVerifier, loadSecrets, signApiKey } from '@auction-ops/auth-core';
import { continuousArchiving } from '@auction-ops/backups';
import { withPort, type Config } from '@auction-ops/server-config';
import type { ServerContext } from './context.js';
import { createLogger, type Logger } from './logger.js';
import { migrationSets } from '@auction-ops/server-config/migration-sets';
import { version } from './version.js';
import { createApp } from './app.js';
import { createFamilies } from './families.js';
import { createServices } from './services/index.js';
import { startWorkers } from './workers/index.js';
import { startDataDirFloor } from './disk-floor.js';
import { createProcessMetrics, startObservability, startTracingIfConfigured } from './observability.js';
import { acceptWebSocketUpgrades } from './http/websocket-upgrade.js';
import { watchRequestBodies } from './http/body-watch.js';
import { inRequestScope } from './http/last-guard.js';
import { transportOf } from './tls/transport-policy.js';
import {
  answerPlainHttpOnTlsPort,
  drainServer,
  isSecureServer,
  reloadOnSighup,
  secureServeOptions,
  trackSecureConnections,
} from './tls/https-server.js';

export interface RunningServer {
  url: string;
  ctx: ServerContext;
  close(): Promise<void>;
}

/** What is settled once per server, before any process serves: the port, the JWT secret, the database. */
export interface PreparedServer {
  config: Config;
  jwtSecret: string;
  ownerUrl: string;
  requestUrl: string;
  /** Stops the embedded Postgres (when this server started one) and releases DATA_DIR. */
  close(): Promise<void>;
}

/** What one serving process is for: its share of the request connections, and whether it runs background work. */
export interface ProcessRole {
  poolSize: number;
  /** Background workers (webhooks, push jobs, overdue checks, import sweep) and the storage orphan sweep. */
  background: boolean;
  /** Appended to the application_name of its pools ('auction-ops', 'auction-ops-owner'), naming the process. */
  nameSuffix: string;
}

/**
 * Settles PORT=0, refuses an unsafe transport, loads the JWT secret, starts or opens the database, migrates. An
 * embedded PostgreSQL is restarted when it dies; `onDatabaseLost` hears when it could not be kept running.
 */
export async function prepareServer(
  config: Config,
  log: Logger,
  onDatabaseLost: (error: Error) => void = () => {},
): Promise<PreparedServer> {
  // Before anything starts: plain HTTP on a public interface is refused here, with the reason.
  transportOf(config);
  const secrets = loadSecrets(config.DATA_DIR, config.JWT_SECRET);
  const db = await prepareDatabase({
    databaseUrl: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    authenticatorPassword: config.DB_AUTHENTICATOR_PASSWORD,
    embeddedPort: config.DB_EMBEDDED_PORT,
    requestStatementTimeoutMs: config.DB_STATEMENT_TIMEOUT_MS,
    migrationSets,
    release: version,
    log: (message) => log.info(message),
    supervise: {
      restart: { maxFailures: config.DB_RESTART_MAX_FAILURES, windowMs: config.DB_RESTART_WINDOW_SECONDS * 1000 },
      report: (level, message, fields) => log[level](message, fields),
      onGiveUp: onDatabaseLost,
    },
    embeddedSettings: { ...config.DB_EMBEDDED_SETTINGS, ...continuousArchiving(config) },
  });
  if (config.BACKUP_TARGET && config.DATABASE_URL)
    log.warn('BACKUP_TARGET does not cover an external database (DATABASE_URL): see docs/backups.md');
  // PORT=0 asks for any free port: settled before the services are made, so PUBLIC_URL (token issuer, e-mail links)
  // names the real one, and after the database, as late as that allows: until the server listens, the port is free
  // for anyone (another server, an outgoing connection) to take, and the migrations took seconds of that window.
  if (config.PORT === 0) config = withPort(config, await findFreePort());
  return { config, jwtSecret: secrets.jwtSecret, ownerUrl: db.ownerUrl, requestUrl: db.requestUrl, close: db.close };
}

/** The API keys: configured, else signed with the JWT secret. */
async function apiKeysOf(config: Config, jwtSecret: string) {
  return {
    anonKey: config.ANON_KEY ?? (await signApiKey(jwtSecret, 'anon')),
    serviceRoleKey: config.SERVICE_ROLE_KEY ?? (await signApiKey(jwtSecret, 'service_role')),
  };
}

/** The whole service in this process: prepare, then serve; close() also stops the database. */
export async function startServer(
  config: Config,
  log: Logger = createLogger(config.LOG_LEVEL),
  onDatabaseLost?: (error: Error) => void,
): Promise<RunningServer> {
  const prepared = await prepareServer(config, log, onDatabaseLost);
  const role = { poolSize: prepared.config.DB_POOL_SIZE, background: true, nameSuffix: '' };
  let running: RunningServer;
  try {
    running = await serveOn(prepared, role, log);
  } catch (error) {
    await prepared.close().catch((e) => log.error('shutdown step failed', { error: String(e) }));
    throw error;
  }
  let closing: Promise<void> | undefined;
  const close = async () => {
    await running.close();
    await prepared.close().catch((error) => log.error('shutdown step failed', { error: String(error) }));
  };
  return { url: running.url, ctx: running.ctx, close: () => (closing ??= close()) };
}

/** Pools, services, the HTTP server and (by role) the background workers on a prepared database; close() leaves
 * the database running. */
export async function serveOn(
  prepared: Omit<PreparedServer, 'close'>,
  role: ProcessRole,
  log: Logger,
  /** A cluster worker: /metrics answers for every process, through the primary. */
  inCluster = false,
): Promise<RunningServer> {
  // A process without the background role leaves the workers and the orphan sweep to the one that has it.
  const config = role.background
    ? prepared.config
    : { ...prepared.config, WORKERS_ENABLED: false, STORAGE_ORPHAN_SWEEP_SECONDS: 0 };
  const transport = transportOf(config);
  const cleanup: Array<() => Promise<void>> = [];
  const runCleanup = async () => {
    for (const step of cleanup.reverse())
      await step().catch((error) => log.error('shutdown step failed', { error: String(error) }));
  };
  try {
    // Requests may go through a pooler (transaction mode); the owner pool, its LISTENs and session locks never do.
    const password = decodeURIComponent(new URL(prepared.requestUrl).password);
    const requestUrl = config.DATABASE_POOLER_URL
      ? authenticatorUrl(config.DATABASE_POOLER_URL, password)
      : prepared.requestUrl;
    const sql = postgres(requestUrl, {
      max: role.poolSize,
      prepare: config.DB_PREPARE,
      backoff: reconnectBackoff,
      onnotice: () => {},
      connection: { application_name: `auction-ops${role.nameSuffix}` },
    });
    const ownerSql = postgres(prepared.ownerUrl, {
      max: 4,
      prepare: config.DB_PREPARE,
      backoff: reconnectBackoff,
      onnotice: () => {},
      connection: { application_name: `auction-ops-owner${role.nameSuffix}` },
    });
    // Auth and the rate limits serve requests as the owner: their statements are bounded like a request's, so a lock
    // on auth.users cannot hold every sign-in (and these connections) without end. A startup parameter is safe
    // here: the owner's connections never go through a pooler.
    const ownerRequestSql = postgres(prepared.ownerUrl, {
      max: 4,
      prepare: config.DB_PREPARE,
      backoff: reconnectBackoff,
      onnotice: () => {},
      connection: {
        application_name: `auction-ops-auth${role.nameSuffix}`,
        statement_timeout: config.DB_STATEMENT_TIMEOUT_MS,
      },
    });
    cleanup.push(
      () => sql.end({ timeout: 5 }),
      () => ownerSql.end({ timeout: 5 }),
      () => ownerRequestSql.end({ timeout: 5 }),
    );
    // Replicas are physical copies: the request role and its password exist there as on the primary.
    const replicas = await createReplicaSet({
      urls: config.DATABASE_READ_URLS.map((u) => authenticatorUrl(u, password)),
      primary: sql,
      poolOptions: {
        // Each replica gets this process's share, like the primary.
        max: role.poolSize,
        prepare: config.DB_PREPARE,
        backoff: reconnectBackoff,
        connection: { application_name: `auction-ops-read${role.nameSuffix}` },
      },
      checkIntervalMs: config.DB_READ_CHECK_INTERVAL_MS,
      maxLagMs: config.DB_READ_MAX_LAG_MS,
      log: (level, message, fields) => log[level](message, fields),
    });
    cleanup.push(() => replicas.close());
    const database = startAvailabilityMonitor({
      url: prepared.ownerUrl,
      intervalMs: config.DB_CHECK_INTERVAL_MS,
      report: (level, message, fields) => log[level](message, fields),
    });
    cleanup.push(() => database.close());
    const diskFloor = await startDataDirFloor(config, log);
    cleanup.push(async () => diskFloor.stop());
    const tracing = await startTracingIfConfigured(config, sql);
    // Last of the cleanup steps (they run in reverse): the spans of everything stopping are still sent.
    if (tracing) cleanup.unshift(() => tracing.close());
    const ctx: ServerContext = {
      config,
      log,
      jwtSecret: prepared.jwtSecret,
      ...(await apiKeysOf(config, prepared.jwtSecret)),
      verifier: createTokenVerifier(prepared.jwtSecret),
      sql,
      ownerSql,
      ownerRequestSql,
      replicas,
      database,
      diskFloor,
      ownerUrl: prepared.ownerUrl,
      requestUrl,
      metrics: config.METRICS_ENABLED ? createProcessMetrics() : undefined,
      tracing,
    };
    const services = await createServices(ctx);
    cleanup.push(() => services.close());
    // Change capture streams before the server listens, so the first join can be answered SUBSCRIBED.
    await services.realtime.start();
    const observability = await startObservability(ctx, { background: role.background, inCluster }, () =>
      services.realtime.stats(),
    );
    cleanup.push(() => observability.close());
    const app = createApp(ctx, createFamilies(ctx, services), {
      transport,
      restRateLimits: services.restRateLimits,
      observability: observability.options,
    });
    const server = await new Promise<Server>((resolve, reject) => {
      const fetch: typeof app.fetch = (req, env) =>
        inRequestScope(env && 'outgoing' in env ? env.outgoing : undefined, () => app.fetch(req, env));
      const options = { fetch, port: config.PORT, hostname: config.HOST, ...secureServeOptions(config) };
      const s = serve(options, () => resolve(s as Server));
      (s as Server).once('error', reject);
    });
    // Node's 5 s default closes idle connections sooner than clients and proxies stop reusing them.
    if (!isSecureServer(server)) server.keepAliveTimeout = config.HTTP_KEEP_ALIVE_SECONDS * 1000;
    watchRequestBodies(server, { idleMs: config.BODY_IDLE_TIMEOUT_MS, log });
    acceptWebSocketUpgrades(server, app, services.realtime);
    const secure = isSecureServer(server) ? server : undefined;
    const tracked = secure && trackSecureConnections(secure);
    if (secure) {
      answerPlainHttpOnTlsPort(secure);
      const stopReloading = reloadOnSighup(secure, config, log);
      cleanup.push(async () => stopReloading());
    }
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.PORT;
    const url = `${secure ? 'https' : 'http'}://${config.HOST}:${port}`;
    const workers = await startWorkers(ctx, services);
    cleanup.push(async () => {
      await Promise.all(workers.map((w) => w.stop()));
    });
    cleanup.push(() => drainServer(server, tracked));
    let closing: Promise<void> | undefined;
    return { url, ctx, close: () => (closing ??= runCleanup()) };
  } catch (error) {
    await runCleanup();
    throw error;
  }
}
