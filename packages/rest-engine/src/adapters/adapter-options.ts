// What the HTTP adapters share: their options, the mount check, the error answers they give themselves (413, 404
// outside the base path), and the step from an HTTP request's pieces to the engine's answer.
import type { RestEngine } from '../engine.js';
import { errorResponse } from '../engine.js';
import { RestError } from '../errors.js';
import type { EngineResponse } from '../respond.js';
import { BodyTooLargeError, normalizeHeaders, type HeadersInput } from '../request-input.js';

export type Claims = Record<string, unknown>;

/**
 * Turns the request's headers into verified claims (undefined: anonymous). Throw a RestError (e.g. from
 * `createJwtAuthenticator`) to refuse the request with its answer.
 */
export type Authenticate = (headers: Readonly<Record<string, string | undefined>>) => Promise<Identity | undefined>;

/** Who a request runs as: verified claims (request.jwt.claims) and the role (default: claims.role, else anon). */
export interface Identity {
  readonly claims?: Claims;
  readonly role?: string;
}

export interface AdapterOptions {
  /** The path the engine is mounted at ('/rest/v1'); requests outside it are 404 (or `next()` in Express). */
  basePath?: string;
  /** Largest body read, in bytes (default 1 MiB); larger bodies answer 413 PGRST413. */
  maxBodyBytes?: number;
  /** How claims are found; default: none, every request is anonymous. */
  authenticate?: Authenticate;
}

interface ResolvedAdapter {
  readonly basePath: string;
  readonly maxBodyBytes: number;
  readonly authenticate: Authenticate | null;
}

export function resolveAdapterOptions(engine: RestEngine, options: AdapterOptions): ResolvedAdapter {
  if (!engine || typeof engine.handle !== 'function') throw new TypeError('the first argument must be a RestEngine');
  if (options === null || typeof options !== 'object') throw new TypeError('options must be an object');
  const base = options.basePath ?? '';
  if (typeof base !== 'string' || (base !== '' && !base.startsWith('/')))
    throw new TypeError(`basePath must be a path starting with "/" (got ${JSON.stringify(base)})`);
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  if (!Number.isInteger(maxBodyBytes) || maxBodyBytes < 0) throw new TypeError('maxBodyBytes must be a whole number');
  if (options.authenticate !== undefined && typeof options.authenticate !== 'function')
    throw new TypeError('authenticate must be a function');
  return { basePath: base.replace(/\/+$/, ''), maxBodyBytes, authenticate: options.authenticate ?? null };
}

/** The path under the mount, or null when the target is outside it. */
function mountedPath(basePath: string, pathname: string): string | null {
  if (basePath === '') return pathname || '/';
  if (pathname === basePath) return '/';
  return pathname.startsWith(`${basePath}/`) ? pathname.slice(basePath.length) : null;
}

const JSON_MEDIA = 'application/json; charset=utf-8';

export function outsideMount(): EngineResponse {
  const body = { code: 'PGRST125', details: null, hint: null, message: 'Invalid path specified in request URL' };
  return { status: 404, headers: { 'content-type': JSON_MEDIA }, body: JSON.stringify(body) };
}

function payloadTooLarge(e: BodyTooLargeError): EngineResponse {
  const body = { code: 'PGRST413', details: e.message, hint: null, message: 'Payload too large' };
  // The connection is closed so that the unread rest of the body is not waited for.
  return { status: 413, headers: { 'content-type': JSON_MEDIA, connection: 'close' }, body: JSON.stringify(body) };
}

/**
 * The Content-Length of an answer without a body, or null where none is sent: 204 and 304 carry none by
 * definition, and a HEAD answer's length would be its GET's, which is not known. Every answer of the engine is
 * buffered, so a length is always known and nothing is sent chunked (a chunked answer costs its framing and, in
 * PostgREST's suite, a header that PostgREST sends).
 */
function emptyBodyLength(status: number, method: string): string | null {
  return status === 204 || status === 304 || method === 'HEAD' ? null : '0';
}

interface HttpPieces {
  readonly method: string;
  /** Path and query string as sent ('/rest/v1/todos?select=*'). */
  readonly target: string;
  readonly headers: HeadersInput | Record<string, string | undefined>;
  /** Reads the body (bounded); only called for methods that carry one. */
  readonly body: (limit: number, headers: Readonly<Record<string, string | undefined>>) => Promise<string | undefined>;
  /** Claims verified by the host already; skips `authenticate`. */
  readonly claims?: Claims;
}

/**
 * One request through the engine: mount, body, claims, then `engine.handle`. Errors become answers; null when the
 * target is outside the base path (the adapter answers 404 or passes the request on).
 */
export async function answer(engine: RestEngine, a: ResolvedAdapter, http: HttpPieces): Promise<EngineResponse | null> {
  const q = http.target.indexOf('?');
  const pathname = q === -1 ? http.target : http.target.slice(0, q);
  const path = mountedPath(a.basePath, pathname);
  if (path === null) return null;
  const headers = normalizeHeaders(http.headers as HeadersInput);
  try {
    // Claims verified by the host take no await and no copy.
    const who: Identity | undefined =
      http.claims !== undefined || !a.authenticate ? undefined : await a.authenticate(headers);
    const method = http.method.toUpperCase();
    const body = method === 'GET' || method === 'HEAD' ? undefined : await http.body(a.maxBodyBytes, headers);
    const res = await engine.handle({
      method,
      path,
      search: q === -1 ? '' : http.target.slice(q + 1),
      headers,
      body,
      claims: who === undefined ? http.claims : who.claims,
      role: who?.role,
    });
    // Said for an empty answer, or Node sends it chunked; a text body's length is the host's to set.
    if (res.body === null && res.bytes === undefined) {
      const length = emptyBodyLength(res.status, method);
      if (length !== null) res.headers['content-length'] = length;
    }
    return res;
  } catch (e) {
    if (e instanceof BodyTooLargeError) return payloadTooLarge(e);
    if (e instanceof RestError) return errorResponse(e, engine.clientErrorVerbosity);
    throw e;
  }
}
