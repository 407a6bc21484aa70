// /rest/v1: a thin Hono adapter over @auction-ops/rest-engine. The auth middleware has verified the JWT and put its
// claims on the context (undefined for anon) or set authError; this file only translates request and response.
import { Hono, type Context } from 'hono';
import type { RestEngine } from '@auction-ops/rest-engine';

export interface RestRoutesOptions {
  /** Where the routes are mounted; stripped from the path the engine sees. */
  basePath?: string;
}

function authErrorMessage(err: unknown): string {
  if (typeof err === 'string') return err;
  if (err && typeof err === 'object' && 'message' in err && typeof (err as { message: unknown }).message === 'string') {
    return (err as { message: string }).message;
  }
  return 'JWT invalid';
}

export function restRoutes(engine: RestEngine, options: RestRoutesOptions = {}): Hono {
  const basePath = options.basePath ?? '/rest/v1';
  const app = new Hono();
  app.all('*', async (c: Context) => {
    const get = (c as unknown as { get(key: string): unknown }).get.bind(c);
    const authError = get('authError');
    if (authError) {
      const message = authErrorMessage(authError);
      return c.body(JSON.stringify({ code: 'PGRST301', details: null, hint: null, message, status: 401 }), 401, {
        'content-type': 'application/json; charset=utf-8',
        'www-authenticate': `Bearer error="invalid_token", error_description="${message.replace(/["\\]/g, '')}"`,
      });
    }
    const url = new URL(c.req.url);
    let path = url.pathname;
    if (path.startsWith(basePath)) path = path.slice(basePath.length);
    const headers: Record<string, string> = {};
    c.req.raw.headers.forEach((value, key) => { headers[key.toLowerCase()] = value; });
    const method = c.req.method;
    const body = method === 'GET' || method === 'HEAD' ? undefined : await c.req.text();
    const claims = get('claims') as Record<string, unknown> | undefined;
    const res = await engine.handle({ method, path: path || '/', search: url.search.slice(1), headers, body, claims });
    return new Response(res.body, { status: res.status, headers: res.headers });
  });
  return app;
}
