// Request id on every response and one JSON log line per request. The query string is never logged:
// it can carry an apikey.
import { randomUUID } from 'node:crypto';
import type { Context } from 'hono';
import type { AppEnv } from '../context.js';
import type { Logger } from '../logger.js';
import { requestHeader } from './response-headers.js';

const SAFE_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** A well-formed incoming X-Request-Id, else a new one. */
export function requestIdOf(c: Context<AppEnv>): string {
  const incoming = requestHeader(c, 'x-request-id');
  return incoming && SAFE_ID.test(incoming) ? incoming : randomUUID();
}

/** The request's log line; its fields are built only when info lines are written. */
export function logRequest(log: Logger, c: Context<AppEnv>, id: string, start: number, status: number): void {
  if (!log.enabled('info')) return;
  log.info('request', {
    id,
    method: c.req.method,
    path: c.req.path,
    status,
    duration_ms: Math.round((performance.now() - start) * 100) / 100,
  });
}
