// Request id on every response and one JSON log line per request. The query string is never logged:
// it can carry an apikey.
import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../context.js';
import type { Logger } from '../logger.js';
import { presetHeaders } from './response-headers.js';

const SAFE_ID = /^[A-Za-z0-9._-]{1,128}$/;

export function requestLog(log: Logger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const start = performance.now();
    const incoming = c.req.header('x-request-id');
    const id = incoming && SAFE_ID.test(incoming) ? incoming : randomUUID();
    c.set('requestId', id);
    const after = presetHeaders(c, { 'x-request-id': id });
    await next();
    after();
    log.info('request', {
      id,
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      duration_ms: Math.round((performance.now() - start) * 100) / 100,
    });
  };
}
