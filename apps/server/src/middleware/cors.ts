// CORS for browser clients (supabase-js): the headers it sends and the ones it reads. Preflights are answered
// here; other responses get the headers preset on Node's response (see response-headers.ts).
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../context.js';
import { presetHeaders } from './response-headers.js';

const ALLOW_METHODS = 'GET,HEAD,POST,PUT,PATCH,DELETE,OPTIONS';
const ALLOW_HEADERS = [
  'apikey', 'authorization', 'content-type', 'x-client-info', 'x-supabase-api-version', 'accept', 'accept-profile',
  'content-profile', 'prefer', 'range', 'x-upsert', 'cache-control', 'x-request-id', 'if-none-match', 'x-metadata',
].join(',');
const EXPOSE_HEADERS = [
  'Content-Range', 'Content-Location', 'Content-Length', 'Content-Disposition', 'ETag', 'Location', 'Preference-Applied',
  'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-Supabase-Api-Version', 'X-Total-Count', 'X-Request-Id',
].join(',');

export const corsMiddleware: MiddlewareHandler<AppEnv> = async (c, next) => {
  // Any origin may call (keys, not cookies, authorise requests); echoing it keeps credentialed fetches working.
  const origin = c.req.header('origin');
  const common: Record<string, string> = {
    'access-control-allow-origin': origin || '*',
    'access-control-allow-credentials': 'true',
    vary: 'Origin',
  };
  if (c.req.method === 'OPTIONS' && c.req.header('access-control-request-method')) {
    return c.body(null, 204, {
      ...common,
      'access-control-allow-methods': ALLOW_METHODS,
      'access-control-allow-headers': ALLOW_HEADERS,
      'access-control-max-age': '86400',
    });
  }
  const after = presetHeaders(c, { ...common, 'access-control-expose-headers': EXPOSE_HEADERS });
  await next();
  after();
};
