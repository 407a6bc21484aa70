// Request helpers shared by the storage routes: the caller (role and claims from the gateway), the raw object
// path after a route prefix, and size-bounded JSON bodies.
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { Context } from 'hono';
import {
  callerFromClaims,
  parseObjectTail,
  StorageError,
  storageErrors,
  type Caller,
  type ObjectRef,
} from '@auction-ops/storage';
import { parseJsonObject, readBoundedText } from '../../http/read-body.js';
import { requestTarget } from '../../http/request-target.js';
import type { AppEnv } from '../../context.js';

/** The caller of this request; a refused Authorization token is a 401 here (public routes never ask). */
export function callerOf(c: Context<AppEnv>): Caller {
  const failure = c.get('authError');
  if (failure) throw storageErrors.invalidJwt(failure.reason === 'expired' ? 'jwt expired' : 'invalid signature');
  return callerFromClaims(c.get('claims') as Record<string, unknown> | undefined);
}

/**
 * The request path exactly as the client sent it. The WHATWG URL behind c.req.url has already resolved `..`
 * and `.` segments, which would turn `<me>/../<you>/x` into a different, valid-looking name instead of a 400.
 */
export function rawPath(c: Context<AppEnv>): string {
  return requestTarget(c).split('?')[0]!;
}

/**
 * The bucket and object name after `marker` in the still-encoded URL path. Hono's decoded path would turn
 * %2F into a separator-looking character sequence; parseObjectTail decodes segment by segment instead.
 */
export function objectRefAfter(c: Context<AppEnv>, marker: string): ObjectRef {
  const path = rawPath(c);
  const at = path.indexOf(marker);
  return parseObjectTail(at < 0 ? '' : path.slice(at + marker.length));
}

// JSON bodies are buffered, so they are bounded: the largest legitimate one, sign with 1000 names of up to
// 1024 bytes, stays well under this.
const MAX_JSON_BYTES = 2 * 1024 * 1024;

// The rest of the body is left unread, so the connection cannot carry another request: ask the client to close it.
function jsonTooLarge(c: Context<AppEnv>): StorageError {
  c.header('Connection', 'close');
  return new StorageError(413, 'Payload too large', `The request body exceeded ${MAX_JSON_BYTES} bytes`);
}

export async function jsonBody(c: Context<AppEnv>): Promise<Record<string, unknown>> {
  const text = await readBoundedText(c.req.raw, MAX_JSON_BYTES);
  if (text === null) throw jsonTooLarge(c);
  const body = parseJsonObject(text);
  if (!body) throw storageErrors.invalidRequest('The body must be a JSON object');
  return body;
}

export function stringField(body: Record<string, unknown>, name: string): string {
  const value = body[name];
  if (typeof value !== 'string' || value === '') throw storageErrors.invalidRequest(`${name} is required`);
  return value;
}

/**
 * The request body as a Node stream: the socket's IncomingMessage itself when served by @hono/node-server
 * (its web-stream wrapper reads ahead of a slow consumer), else the web body (in-process app.request()).
 */
export function requestBody(c: Context<AppEnv>): Readable | null {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (incoming && !incoming.readableDidRead) return incoming;
  const body = c.req.raw.body;
  return body ? Readable.fromWeb(body as import('node:stream/web').ReadableStream<Uint8Array>) : null;
}
