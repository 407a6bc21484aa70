// /rest/v1: a thin Hono adapter over @auction-ops/rest-engine. The gateway has verified the token and put its
// claims on the context, or set authError; this file only translates the request and the response.
import { Hono } from 'hono';
import type { RestEngine } from '@auction-ops/rest-engine';
import type { AppEnv } from '../context.js';
import { takeGatewayHeaders } from '../middleware/response-headers.js';
import { readBoundedText } from '../http/read-body.js';
import { requestTarget } from '../http/request-target.js';

const MOUNT = '/rest/v1';

export interface RestRouteOptions {
  /** Largest request body read, in bytes (REST_MAX_BODY_BYTES). */
  maxBodyBytes: number;
}

const JSON_MEDIA = 'application/json; charset=utf-8';

/** 413 in the data error shape; the connection is closed so the unread rest of the body is not waited for. */
function payloadTooLarge(limit: number): Response {
  const body = {
    code: 'PGRST413',
    details: `The request body is larger than the limit of ${limit} bytes`,
    hint: null,
    message: 'Payload too large',
  };
  return new Response(JSON.stringify(body), {
    status: 413,
    headers: { 'content-type': JSON_MEDIA, connection: 'close' },
  });
}

export function restRoutes(engine: RestEngine, options: RestRouteOptions): Hono<AppEnv> {
  return new Hono<AppEnv>().all('*', async (c) => {
    const authError = c.get('authError');
    if (authError) {
      // The interface's expired-token answer: 401 with a message naming the expiry, PGRST301 kept as the code.
      const message = authError.message;
      return c.body(JSON.stringify({ code: 'PGRST301', details: null, hint: null, message, status: 401 }), 401, {
        'content-type': 'application/json; charset=utf-8',
        'www-authenticate': `Bearer error="invalid_token", error_description="${message.replace(/["\\]/g, '')}"`,
      });
    }
    // Node's parsed request line and headers when served by node-server: building a URL and a Headers object per
    // request costs more than the engine's whole parse-plan-compile.
    const incoming = c.env?.incoming;
    const target = requestTarget(c);
    const q = target.indexOf('?');
    const pathname = q === -1 ? target : target.slice(0, q);
    const path = pathname.startsWith(MOUNT) ? pathname.slice(MOUNT.length) : pathname;
    const headers = incoming ? nodeHeaders(incoming.headers) : Object.fromEntries(c.req.raw.headers);
    const method = c.req.method;
    let body: string | undefined;
    if (method !== 'GET' && method !== 'HEAD') {
      const text = await readBoundedText(c.req.raw, options.maxBodyBytes);
      if (text === null) return payloadTooLarge(options.maxBodyBytes);
      body = text;
    }
    const res = await engine.handle({
      method,
      path: path || '/',
      search: q === -1 ? '' : target.slice(q + 1),
      headers,
      body,
      claims: c.get('claims'),
    });
    // A plain header object keeps node-server on its fast path; the gateway's headers join it here.
    takeGatewayHeaders(c, res.headers);
    return new Response(res.body, { status: res.status, headers: res.headers });
  });
}

/** Node keeps repeated headers as arrays (set-cookie) or joins them; the engine takes one string per name. */
function nodeHeaders(headers: import('node:http').IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key in headers) {
    const value = headers[key];
    if (value !== undefined) out[key] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
