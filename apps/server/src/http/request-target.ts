// The request target (path and query) exactly as the client sent it. The WHATWG URL behind c.req.url resolves
// `..` and `.` segments and costs a parse per request; node-server's IncomingMessage keeps the raw line.
import type { Context } from 'hono';
import type { AppEnv } from '../context.js';

export function requestTarget(c: Context<AppEnv>): string {
  const raw = c.env?.incoming?.url;
  if (raw !== undefined) return raw;
  const url = c.req.url;
  return url.slice(url.indexOf('/', url.indexOf('//') + 2));
}
