// CORS for browser clients (supabase-js): the headers it sends and the ones it reads. Preflights are answered
// here; other responses get the headers preset on Node's response (see response-headers.ts).
import type { Context } from 'hono';
import type { AppEnv } from '../context.js';
import { requestHeader } from './response-headers.js';

const ALLOW_METHODS = 'GET,HEAD,POST,PUT,PATCH,DELETE,OPTIONS';
const ALLOW_HEADERS = [
  'apikey',
  'authorization',
  'content-type',
  'x-client-info',
  'x-supabase-api-version',
  'accept',
  'accept-profile',
  'content-profile',
  'prefer',
  'range',
  'x-upsert',
  'cache-control',
  'x-request-id',
  'if-none-match',
  'x-metadata',
  // TUS (resumable uploads)
  'tus-resumable',
  'upload-length',
  'upload-metadata',
  'upload-offset',
].join(',');
const EXPOSE_HEADERS = [
  'Content-Range',
  'Content-Location',
  'Content-Length',
  'Content-Disposition',
  'ETag',
  'Location',
  'Preference-Applied',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'X-Supabase-Api-Version',
  'X-Total-Count',
  'X-Request-Id',
  'Tus-Resumable',
  'Tus-Version',
  'Tus-Extension',
  'Tus-Max-Size',
  'Upload-Offset',
  'Upload-Length',
  'Upload-Expires',
].join(',');

/** The CORS headers of every non-preflight response, as parallel name and value lists (see gateway.ts). */
export const CORS_NAMES: readonly string[] = [
  'access-control-allow-origin',
  'access-control-allow-credentials',
  'vary',
  'access-control-expose-headers',
];

/**
 * The values of `names` (CORS_NAMES after the request id's name): any origin may call (keys, not cookies, authorise
 * requests); echoing it keeps credentialed fetches working. One array per request.
 */
export function idAndCorsValues(c: Context<AppEnv>, id: string): string[] {
  return [id, requestHeader(c, 'origin') || '*', 'true', 'Origin', EXPOSE_HEADERS];
}

/** The answer to a preflight, or undefined when the request is not one. */
export function preflight(c: Context<AppEnv>): Response | undefined {
  if (c.req.method !== 'OPTIONS' || !requestHeader(c, 'access-control-request-method')) return undefined;
  return c.body(null, 204, {
    'access-control-allow-origin': requestHeader(c, 'origin') || '*',
    'access-control-allow-credentials': 'true',
    vary: 'Origin',
    'access-control-allow-methods': ALLOW_METHODS,
    'access-control-allow-headers': ALLOW_HEADERS,
    'access-control-max-age': '86400',
  });
}
