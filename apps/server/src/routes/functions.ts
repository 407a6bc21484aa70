// /functions/v1: a thin Hono adapter over the functions family. The family resolves the caller, applies the
// per-user limits and renders errors; this file builds its dependencies and hands each request over.
import { Hono } from 'hono';
import { createMailer, memoryRateLimitStore, postgresRateLimitStore, RateLimiter } from '@auction-ops/auth-core';
import {
  allFunctions,
  createFunctionDispatcher,
  createPushProvider,
  type FunctionDeps,
  pushLeaseMs,
  QueryCache,
} from '@auction-ops/functions';
import { OPENAI_DEFAULT_BASE_URL } from '../config/reporting.js';
import type { AppEnv, Mounted, ServerContext } from '../context.js';

const CACHE_TTL_MS = 5 * 60 * 1000;

export function functionRoutes(ctx: ServerContext): Mounted {
  const c = ctx.config;
  const mailer = createMailer(ctx.ownerSql, {
    from: c.MAIL_FROM,
    resendApiKey: c.RESEND_API_KEY,
    resendBaseUrl: c.RESEND_BASE_URL,
    smtpUrl: c.SMTP_URL,
  });
  const deps: FunctionDeps = {
    sql: ctx.sql,
    ownerSql: ctx.ownerSql,
    provider: createPushProvider(c, ctx.ownerSql, ctx.log),
    mailer,
    appUrl: c.APP_URL,
    leaseMs: pushLeaseMs(c),
    workerId: `endpoint:${process.pid}`,
    log: ctx.log,
    queryCache: new QueryCache({ maxBytes: c.QUERY_CACHE_MAX_BYTES, ttlMs: CACHE_TTL_MS }),
    executeQueryTimeoutMs: c.EXECUTE_QUERY_TIMEOUT_MS,
    importMaxBytes: c.IMPORT_MAX_BYTES,
    llm: {
      apiKey: c.OPENAI_API_KEY,
      baseUrl: c.OPENAI_BASE_URL ?? OPENAI_DEFAULT_BASE_URL,
      model: c.OPENAI_MODEL,
      timeoutMs: c.LLM_TIMEOUT_MS,
      configured: Boolean(c.OPENAI_API_KEY || c.OPENAI_BASE_URL),
    },
  };
  const store = c.AUTH_RATE_LIMIT_STORE === 'postgres' ? postgresRateLimitStore(ctx.ownerSql) : memoryRateLimitStore();
  const dispatcher = createFunctionDispatcher(allFunctions, deps, {
    limiter: new RateLimiter(store),
    limits: c.FUNCTION_RATE_LIMITS,
    onError: (error, name) => ctx.log.error('function failed', { name, error: String(error) }),
  });
  // Everything under the mount reaches the dispatcher, so an unknown or nested name is its NOT_FOUND too.
  const app = new Hono<AppEnv>().all('*', (hc) =>
    dispatcher.dispatch({
      name: hc.req.path.replace(/^\/functions\/v1\/?/, ''),
      request: hc.req.raw,
      claims: hc.get('claims'),
      tokenRefused: hc.get('authError') !== undefined,
      clientIp: hc.get('clientIp'),
    }),
  );
  return {
    app,
    close: async () => {
      await mailer.close?.();
      await store.close?.();
    },
  };
}
