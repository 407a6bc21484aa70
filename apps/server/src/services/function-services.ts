// What the nine functions need, from configuration: the push provider, the mailer shared with auth, the
// language model's settings, the report cache, and the dispatcher with its per-user limits.
import { type Mailer, memoryRateLimitStore, postgresRateLimitStore, RateLimiter } from '@auction-ops/auth-core';
import {
  allFunctions,
  createFunctionDispatcher,
  createPushProvider,
  type FunctionDispatcher,
  pushLeaseMs,
  QueryCache,
  SharedQueryCache,
} from '@auction-ops/functions';
import { OPENAI_DEFAULT_BASE_URL } from '@auction-ops/server-config';
import type { ServerContext } from '../context.js';
import { isBodyBreakOff } from '../http/body-watch.js';
import { readBoundedText } from '../http/read-body.js';

export interface FunctionServices {
  dispatcher: FunctionDispatcher;
  close(): Promise<void>;
}

export function createFunctionServices(ctx: ServerContext, mailer: Mailer): FunctionServices {
  const c = ctx.config;
  const deps = {
    sql: ctx.sql,
    ownerSql: ctx.ownerSql,
    provider: createPushProvider(c, ctx.ownerSql, ctx.log),
    mailer,
    appUrl: c.APP_URL,
    leaseMs: pushLeaseMs(c),
    workerId: `endpoint:${process.pid}`,
    log: ctx.log,
    queryCache: new SharedQueryCache(
      new QueryCache({ maxBytes: c.QUERY_CACHE_MAX_BYTES }),
      c.QUERY_CACHE_SHARED ? { sql: ctx.ownerSql, maxBytes: c.QUERY_CACHE_SHARED_MAX_BYTES } : null,
    ),
    executeQueryTimeoutMs: c.EXECUTE_QUERY_TIMEOUT_MS,
    importMaxBytes: c.IMPORT_MAX_BYTES,
    diskFloor: ctx.diskFloor,
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
    readText: (request) => readBoundedText(request, c.FUNCTION_MAX_BODY_BYTES),
    onError: (error, name) => {
      // A client gone mid-body is logged at info by the body watch, not as a failed function.
      if (!isBodyBreakOff(error)) ctx.log.error('function failed', { name, error: String(error) });
    },
  });
  return { dispatcher, close: async () => store.close?.() };
}
