// The composition root: every service the server runs, built once from the validated configuration. Route
// modules receive what they need from here and only translate HTTP; a new path family is one builder here and
// one mount in families.ts.
import { createMailer, type Mailer } from '@auction-ops/auth-core';
import { createRestEngine, type RestEngine } from '@auction-ops/rest-engine';
import type { StorageService } from '@auction-ops/storage';
import { createRealtimeService, type RealtimeService } from '@auction-ops/realtime';
import type { ServerContext } from '../context.js';
import type { RestRateLimitOptions } from '../middleware/rate-limit.js';
import { type AuthServices, createAuthServices } from './auth-services.js';
import { createFunctionServices, type FunctionServices } from './function-services.js';
import { createRestRateLimits } from './rate-limit-services.js';
import { createConfiguredStorage } from './storage-service.js';
import { withReadReplicas } from './read-routing.js';

export interface Services {
  mailer: Mailer;
  auth: AuthServices;
  rest: RestEngine;
  storage: StorageService;
  functions: FunctionServices;
  /** The data interface's rate limiter and tier cache; absent when RATE_LIMITS_ENABLED is false. */
  restRateLimits?: RestRateLimitOptions;
  /** Started by the server before it listens: change capture must stream before the first join. */
  realtime: RealtimeService;
  /** Releases everything in reverse order of dependence. */
  close(): Promise<void>;
}

export async function createServices(ctx: ServerContext): Promise<Services> {
  const c = ctx.config;
  // One mailer for auth's e-mails and the functions' invitations and notices.
  const mailer = createMailer(ctx.ownerSql, {
    from: c.MAIL_FROM,
    resendApiKey: c.RESEND_API_KEY,
    resendBaseUrl: c.RESEND_BASE_URL,
    smtpUrl: c.SMTP_URL,
  });
  const [auth, rest, storage] = await Promise.all([
    createAuthServices(ctx, mailer),
    createRestEngine({
      sql: ctx.sql,
      // Its own session for LISTEN: the request pool may go through a pooler in transaction mode.
      listenSql: ctx.ownerSql,
      schemas: ['public'],
      // The roles this server's keys and tokens name; the login role may be able to switch to others.
      roles: ['anon', 'authenticated', 'service_role'],
      extraSearchPath: c.REST_EXTRA_SEARCH_PATH,
      planEnabled: c.REST_PLAN_ENABLED,
      txRollbackAllowed: c.REST_TX_ROLLBACK_ALLOWED,
      maxRows: c.REST_MAX_ROWS,
      statementTimeoutMs: c.DB_STATEMENT_TIMEOUT_MS,
      poolTimeoutMs: c.DB_POOL_TIMEOUT_MS,
      // Two staff writing the same rows in different orders deadlock; the one rolled back is run again rather than
      // answered 500 (docs/errors.md). Our functions have no effects outside the database to repeat.
      conflictRetries: 2,
      onPlanCacheLookup: ctx.metrics?.planCacheLookup,
      // Deleting an auction marks it (domain/0031, 0034): the answer is the marked auction or delete_auction's
      // refusal, where a DELETE skipped by the table's trigger answered both with no rows.
      softDeletes: { 'public.auctions': 'public.delete_auction' },
    }).then((engine) => withReadReplicas(engine, ctx.replicas)),
    createConfiguredStorage(ctx),
  ]);
  const functions = createFunctionServices(ctx, mailer);
  const realtime = createRealtimeService({
    sql: ctx.sql,
    ownerSql: ctx.ownerSql,
    ownerUrl: ctx.ownerUrl,
    verifier: ctx.verifier,
    log: (level, message, fields) => ctx.log[level](message, fields),
    limits: {
      connectionsPerIp: c.REALTIME_MAX_CONNECTIONS_PER_IP,
      channelsPerConnection: c.REALTIME_MAX_CHANNELS_PER_CONNECTION,
      eventsPerSecond: c.REALTIME_MAX_EVENTS_PER_SECOND,
      maxPayloadBytes: c.REALTIME_MAX_PAYLOAD_BYTES,
    },
    publicChannels: c.REALTIME_PUBLIC_CHANNELS,
    retention: {
      maxAgeSeconds: c.REALTIME_REPLAY_MAX_AGE_SECONDS,
      maxMessagesPerTopic: c.REALTIME_REPLAY_MAX_MESSAGES_PER_TOPIC,
    },
  });
  return {
    mailer,
    auth,
    rest,
    storage,
    functions,
    restRateLimits: c.RATE_LIMITS_ENABLED ? createRestRateLimits(ctx) : undefined,
    realtime,
    async close() {
      await realtime.stop();
      await Promise.all([auth.close(), rest.close(), storage.close(), functions.close()]);
      await mailer.close?.();
    },
  };
}
