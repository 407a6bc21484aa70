// INTERIM /functions/v1 mount of the six notification functions, until the functions family (routing, caller,
// limits, errors) lands from the reporting branch; replaced by its registry at merge.
import { Hono } from 'hono';
import { createMailer, memoryRateLimitStore, RateLimiter } from '@auction-ops/auth-core';
import { createPushProvider, NOTIFY_FUNCTIONS, pushLeaseMs, FunctionError } from '@auction-ops/functions';
import type { AppEnv, Mounted, ServerContext } from '../context.js';

export function functionRoutes(ctx: ServerContext): Mounted {
  const c0 = ctx.config;
  const deps = {
    sql: ctx.sql,
    ownerSql: ctx.ownerSql,
    provider: createPushProvider(c0, ctx.ownerSql, ctx.log),
    mailer: createMailer(ctx.ownerSql, {
      from: c0.MAIL_FROM,
      resendApiKey: c0.RESEND_API_KEY,
      resendBaseUrl: c0.RESEND_BASE_URL,
      smtpUrl: c0.SMTP_URL,
    }),
    appUrl: c0.APP_URL,
    leaseMs: pushLeaseMs(c0),
    workerId: `endpoint:${process.pid}`,
    log: ctx.log,
  };
  const limiter = new RateLimiter(memoryRateLimitStore());
  const app = new Hono<AppEnv>();
  const fail = (status: number, code: string, error: string, details?: string) =>
    new Response(JSON.stringify(details ? { error, code, details } : { error, code }), {
      status,
      headers: { 'content-type': 'application/json' },
    });
  for (const fn of NOTIFY_FUNCTIONS) {
    app.all(`/${fn.name}`, async (c) => {
      if (c.req.method === 'OPTIONS') return c.body(null, 204);
      if (c.req.method !== 'POST') {
        const res = fail(405, 'METHOD_NOT_ALLOWED', `${c.req.method} is not allowed; use POST`);
        res.headers.set('allow', 'POST, OPTIONS');
        return res;
      }
      const claims = c.get('claims');
      const role = claims?.role;
      if (c.get('authError') || !claims || (role !== 'service_role' && !(role === 'authenticated' && claims.sub)))
        return fail(401, 'UNAUTHORIZED', 'a valid user access token is required');
      if (fn.serviceRoleOnly && role !== 'service_role')
        return fail(403, 'FORBIDDEN', `${fn.name} needs the service role`);
      const subject = role === 'service_role' ? 'service_role' : String(claims.sub);
      const rate = await limiter.check(fn.name, subject, { limit: fn.perMinute, windowSeconds: 60 });
      const headers = {
        'x-ratelimit-limit': String(rate.limit),
        'x-ratelimit-remaining': String(rate.remaining),
        'x-ratelimit-reset': String(rate.reset),
      };
      const withHeaders = (res: Response) => {
        for (const [k, v] of Object.entries(headers)) res.headers.set(k, v);
        return res;
      };
      if (!rate.allowed) {
        const res = fail(429, 'RATE_LIMITED', `at most ${fn.perMinute} requests per minute for ${fn.name}`);
        res.headers.set('retry-after', String(Math.max(1, rate.reset - Math.floor(Date.now() / 1000))));
        return withHeaders(res);
      }
      let body: unknown;
      try {
        const text = await c.req.text();
        body = text.trim() === '' ? {} : JSON.parse(text);
      } catch {
        return withHeaders(fail(400, 'INVALID_REQUEST', 'the request body is not JSON', 'body'));
      }
      const caller = {
        role: role as 'authenticated' | 'service_role',
        claims,
        userId: role === 'authenticated' ? String(claims.sub) : undefined,
      };
      try {
        return withHeaders(c.json(await fn.handler(deps, caller, body)));
      } catch (error) {
        if (error instanceof FunctionError)
          return withHeaders(fail(error.status, error.code, error.message, error.details));
        ctx.log.error('function failed', { name: fn.name, error: String(error) });
        return withHeaders(fail(500, 'INTERNAL_ERROR', 'internal error'));
      }
    });
  }
  app.notFound(() => fail(404, 'NOT_FOUND', 'no such function'));
  return { app, close: async () => deps.mailer.close?.() };
}
