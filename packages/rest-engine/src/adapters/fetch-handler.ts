// The engine as a fetch handler (Request -> Response), for Hono, Bun, Deno, workers and any server built on the
// fetch API's Request and Response.
import type { RestEngine } from '../engine.js';
import { type AdapterOptions, answer, type Claims, outsideMount, resolveAdapterOptions } from './adapter-options.js';
import { BodyTooLargeError, readBody, type HeadersInput } from '../request-input.js';

/** Per-request help from a host that has done part of the work (a gateway that verified the token). */
export interface FetchContext {
  /** Verified claims: `authenticate` is skipped. */
  claims?: Claims;
  /** The same headers in a cheaper form (node's IncomingHttpHeaders under @hono/node-server). */
  headers?: HeadersInput;
  /** The path and query string when the host has it without parsing `request.url`. */
  target?: string;
  /** Called with the answer's plain header object before the Response is built: a host adds its own headers. */
  beforeResponse?: (headers: Record<string, string>) => void;
}

export type FetchHandler = (request: Request, context?: FetchContext) => Promise<Response>;

export function createFetchHandler(engine: RestEngine, options: AdapterOptions = {}): FetchHandler {
  const adapter = resolveAdapterOptions(engine, options);
  return async (request, context = {}) => {
    // Duck-typed: hosts such as @hono/node-server hand out their own Request classes.
    if (request === null || typeof request !== 'object' || typeof request.method !== 'string' || !request.url)
      throw new TypeError('the fetch handler takes a Request');
    const target = context.target ?? targetOf(request.url);
    const res =
      (await answer(engine, adapter, {
        method: request.method,
        target,
        headers: context.headers ?? request.headers,
        body: (limit, headers) => {
          if (Number(headers['content-length'] ?? 0) > limit) return Promise.reject(new BodyTooLargeError(limit));
          return request.body === null ? Promise.resolve(undefined) : readBody(request.body, limit);
        },
        claims: context.claims,
      })) ?? outsideMount();
    // A text body's length is left to the host: every fetch host sets it (node-server without a header entry, which
    // is cheaper than ours).
    context.beforeResponse?.(res.headers);
    return new Response(res.bytes ?? res.body, { status: res.status, headers: res.headers });
  };
}

function targetOf(url: string): string {
  const u = new URL(url);
  return u.pathname + u.search;
}
