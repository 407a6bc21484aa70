// CORS for browser clients (supabase-js): the headers it sends and the ones it reads.
import { cors } from 'hono/cors';

export const corsMiddleware = cors({
  origin: (origin) => origin || '*',
  allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
  allowHeaders: [
    'apikey', 'authorization', 'content-type', 'x-client-info', 'x-supabase-api-version', 'accept', 'accept-profile',
    'content-profile', 'prefer', 'range', 'x-upsert', 'cache-control', 'x-request-id', 'if-none-match', 'x-metadata',
  ],
  exposeHeaders: [
    'Content-Range', 'Content-Location', 'Content-Length', 'Content-Disposition', 'ETag', 'Location', 'Preference-Applied',
    'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-Supabase-Api-Version', 'X-Total-Count', 'X-Request-Id',
  ],
  credentials: true,
  maxAge: 86400,
});
