// /rest/v1: @auction-ops/rest-engine's fetch adapter under Hono. The gateway has verified the token and put its
// claims on the context, or set authError; this file only translates the request and the response.
import { Hono } from 'hono';
import { createFetchHandler, errors, type RestEngine } from '@auction-ops/rest-engine';
import type { AppEnv } from '../context.js';
import { takeGatewayHeaders } from '../middleware/response-headers.js';
import { requestTarget } from '../http/request-target.js';

const MOUNT = '/rest/v1';

interface RestRouteOptions {
  /** Largest request body read, in bytes (REST_MAX_BODY_BYTES). */
  maxBodyBytes: number;
}

export function restRoutes(engine: RestEngine, options: RestRouteOptions): Hono<AppEnv> {
  // The package's own fetch adapter, so that the path strangers use is the one exercised every day.
  const handler = createFetchHandler(engine, { basePath: MOUNT, maxBodyBytes: options.maxBodyBytes });
  return new Hono<AppEnv>().all('*', async (c) => {
    const authError = c.get('authError');
    if (authError) {
      // The interface's expired-token answer: 401 with a message naming the expiry, PGRST301 kept as the code, and
      // the status repeated in the body.
      const error = errors.jwt(authError.message);
      const { code, details, hint, message, status } = error;
      return c.body(JSON.stringify({ code, details, hint, message, status }), 401, {
        'content-type': 'application/json; charset=utf-8',
        ...error.headers,
      });
    }
    // Node's parsed headers and request line when served by node-server: building a URL and a Headers object per
    // request costs more than the engine's whole parse-plan-compile.
    return handler(c.req.raw, {
      claims: c.get('claims'),
      headers: c.env?.incoming?.headers,
      target: requestTarget(c),
      // A plain header object keeps node-server on its fast path; the gateway's headers join it here. Tracing
      // reads the engine's stages from the context, not from the finished response (see request-spans.ts).
      beforeResponse: (headers) => {
        takeGatewayHeaders(c, headers);
        c.set('serverTiming', headers['server-timing']);
      },
    });
  });
}
