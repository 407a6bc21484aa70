// Starts the whole service: database (embedded or external), migrations, pools, HTTP server and workers,
// and stops them in order: stop accepting, drain in-flight requests, stop workers, close pools, stop Postgres.
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import postgres from 'postgres';
import { findFreePort, prepareDatabase } from '@auction-ops/database';
import { createTokenVerifier, signApiKey } from '@auction-ops/auth-core';
import { withPort, type Config } from './config/index.js';
import type { ServerContext } from './context.js';
import { createLogger, type Logger } from './logger.js';
import { loadSecrets } from './secrets.js';
import { migrationSets } from './migration-sets.js';
import { createApp } from './app.js';
import { createFamilies } from './families.js';
import { createServices } from './services/index.js';
import { startWorkers } from './workers/index.js';
import { acceptWebSocketUpgrades } from './http/websocket-upgrade.js';
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

export async function startServer(
  config: Config,
  log: Logger = createLogger(config.LOG_LEVEL),
): Promise<RunningServer> {
  // PORT=0 asks for any free port: settle it first so PUBLIC_URL (token issuer, e-mail links) names the real one.
  if (config.PORT === 0) config = withPort(config, await findFreePort());
  // Before anything starts: plain HTTP on a public interface is refused here, with the reason.
  const transport = transportOf(config);
  const secrets = loadSecrets(config.DATA_DIR, config.JWT_SECRET);
  const db = await prepareDatabase({
    databaseUrl: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    authenticatorPassword: config.DB_AUTHENTICATOR_PASSWORD,
    migrationSets,
    log: (message) => log.info(message),
  });
  const cleanup: Array<() => Promise<void>> = [() => db.close()];
  const runCleanup = async () => {
    for (const step of cleanup.reverse())
      await step().catch((error) => log.error('shutdown step failed', { error: String(error) }));
  };
  try {
    const sql = postgres(db.requestUrl, {
      max: config.DB_POOL_SIZE,
      onnotice: () => {},
      connection: { application_name: 'auction-ops' },
    });
    const ownerSql = postgres(db.ownerUrl, {
      max: 4,
      onnotice: () => {},
      connection: { application_name: 'auction-ops-owner' },
    });
    cleanup.push(
      () => sql.end({ timeout: 5 }),
      () => ownerSql.end({ timeout: 5 }),
    );
    const ctx: ServerContext = {
      config,
      log,
      jwtSecret: secrets.jwtSecret,
      anonKey: config.ANON_KEY ?? (await signApiKey(secrets.jwtSecret, 'anon')),
      serviceRoleKey: config.SERVICE_ROLE_KEY ?? (await signApiKey(secrets.jwtSecret, 'service_role')),
      verifier: createTokenVerifier(secrets.jwtSecret),
      sql,
      ownerSql,
      ownerUrl: db.ownerUrl,
      requestUrl: db.requestUrl,
    };
    const services = await createServices(ctx);
    cleanup.push(() => services.close());
    // Change capture streams before the server listens, so the first join can be answered SUBSCRIBED.
    await services.realtime.start();
    const app = createApp(ctx, createFamilies(ctx, services), { transport, restRateLimits: services.restRateLimits });
    const server = await new Promise<Server>((resolve, reject) => {
      const options = { fetch: app.fetch, port: config.PORT, hostname: config.HOST, ...secureServeOptions(config) };
      const s = serve(options, () => resolve(s as Server));
      (s as Server).once('error', reject);
    });
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
    const workers = await startWorkers(ctx);
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
