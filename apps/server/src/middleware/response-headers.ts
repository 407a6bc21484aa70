// Headers every response carries (request id, CORS). Setting them on Node's response before the handler runs
// lets node-server merge them when it writes the head; adding them to a finished web Response afterwards makes
// Hono copy the response and its headers, which measured at about 150 µs per request.
import type { Context } from 'hono';
import type { AppEnv } from '../context.js';

/** Sets the headers before `next()`; returns a function that applies them afterwards when there is no Node response. */
export function presetHeaders(c: Context<AppEnv>, headers: Readonly<Record<string, string>>): () => void {
  const outgoing = (c.env as { outgoing?: import('node:http').ServerResponse } | undefined)?.outgoing;
  if (outgoing && !outgoing.headersSent) {
    for (const name in headers) outgoing.setHeader(name, headers[name]);
    return () => {};
  }
  return () => {
    for (const name in headers) c.res.headers.set(name, headers[name]);
  };
}
