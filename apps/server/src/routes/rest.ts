// /rest/v1: a thin Hono adapter over @auction-ops/rest-engine. The gateway has verified the token and put its
// claims on the context, or set authError; this file only translates the request and the response.
import { Hono } from 'hono';
import type { RestEngine } from '@auction-ops/rest-engine';
import type { AppEnv } from '../context.js';

const MOUNT = '/rest/v1';

export function restRoutes(engine: RestEngine): Hono<AppEnv> {
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
    const url = new URL(c.req.url);
    const path = url.pathname.startsWith(MOUNT) ? url.pathname.slice(MOUNT.length) : url.pathname;
    const headers: Record<string, string> = {};
    c.req.raw.headers.forEach((value, key) => { headers[key] = value; });
    const method = c.req.method;
    const body = method === 'GET' || method === 'HEAD' ? undefined : await c.req.text();
    const res = await engine.handle({ method, path: path || '/', search: url.search.slice(1), headers, body, claims: c.get('claims') });
    return new Response(res.body, { status: res.status, headers: res.headers });
  });
}
