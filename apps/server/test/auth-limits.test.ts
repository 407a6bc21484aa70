// Rate limits of /auth/v1 over real HTTP: headers on every answer, 429 rate_limit_exceeded, per-IP, per-e-mail
// and per-user buckets, forged X-Forwarded-For ignored unless from a trusted proxy, and counters shared by two
// instances through the Postgres store.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@supabase/supabase-js';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { startServer, loadConfig, migrationSets, type RunningServer } from '@auction-ops/server';
import { NoWebSocket } from './support/test-server.js';

let db: TestDatabase;
let a: RunningServer;
let b: RunningServer;

const env = (extra: Record<string, string>) =>
  loadConfig({
    PORT: '0',
    DATABASE_URL: db.ownerUrl,
    DATA_DIR: mkdtempSync(join(tmpdir(), 'auth-limits-')),
    LOG_LEVEL: 'silent',
    JWT_SECRET: 'y'.repeat(40),
    WORKERS_ENABLED: 'false',
    AUTH_RATE_LIMIT_STORE: 'postgres',
    AUTH_RATE_LIMIT_WINDOW_SECONDS: '86400',
    AUTH_RATE_LIMIT_SIGN_IN: '3',
    AUTH_RATE_LIMIT_SIGN_UP: '2',
    AUTH_RATE_LIMIT_RECOVER: '2',
    AUTH_RATE_LIMIT_REFRESH: '2',
    AUTH_RATE_LIMIT_OTHER: '1000',
    ...extra,
  });

beforeAll(async () => {
  db = await createTestDatabase(migrationSets);
  a = await startServer(env({}));
  // A second instance on the same database; it trusts the loopback address as a proxy.
  b = await startServer(env({ TRUSTED_PROXY_CIDRS: '127.0.0.1/32' }));
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await db?.drop();
});

function post(server: RunningServer, path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${server.url}/auth/v1${path}`, {
    method: 'POST',
    // Instance b trusts loopback as a proxy, which makes it HTTPS-only: the "proxy" says the client used HTTPS.
    headers: {
      apikey: server.ctx.anonKey,
      'content-type': 'application/json',
      'x-forwarded-proto': 'https',
      ...headers,
    },
    body: JSON.stringify(body),
  });
}
const limitHeaders = (res: Response) => ({
  limit: res.headers.get('x-ratelimit-limit'),
  remaining: res.headers.get('x-ratelimit-remaining'),
  reset: Number(res.headers.get('x-ratelimit-reset')),
});

describe('rate limits', () => {
  it('sign-in per IP: counts down to 429; a forged X-Forwarded-For does not reset; instances share it', async () => {
    const signIn = (server: RunningServer, headers?: Record<string, string>) =>
      post(server, '/token?grant_type=password', { email: 'nobody@example.com', password: 'whatever123' }, headers);
    const first = await signIn(a);
    expect(first.status).toBe(400);
    expect(limitHeaders(first)).toMatchObject({ limit: '3', remaining: '2' });
    expect(limitHeaders(first).reset).toBeGreaterThan(Date.now() / 1000);
    // The second instance counts in the same store.
    expect(limitHeaders(await signIn(b)).remaining).toBe('1');
    expect(limitHeaders(await signIn(a, { 'x-forwarded-for': '203.0.113.9' })).remaining).toBe('0');
    const limited = await signIn(a, { 'x-forwarded-for': '198.51.100.7' });
    expect(limited.status).toBe(429);
    expect(limitHeaders(limited)).toMatchObject({ limit: '3', remaining: '0' });
    expect(await limited.json()).toMatchObject({ error: 'rate_limit_exceeded', error_code: 'rate_limit_exceeded' });

    // Through supabase-js the code is surfaced.
    const sb = createClient(a.url, a.ctx.anonKey, {
      auth: { persistSession: false, autoRefreshToken: false },
      realtime: { transport: NoWebSocket as never },
    });
    const res = await sb.auth.signInWithPassword({ email: 'nobody@example.com', password: 'whatever123' });
    expect(res.error).toMatchObject({ status: 429, code: 'rate_limit_exceeded' });

    // Behind a trusted proxy the forwarded address is the client: another client has its own budget.
    const proxied = await signIn(b, { 'x-forwarded-for': '198.51.100.7' });
    expect(proxied.status).toBe(400);
    expect(limitHeaders(proxied).remaining).toBe('2');
  });

  it('sign-up per IP', async () => {
    const signUp = (i: number) => post(a, '/signup', { email: `limit${i}@example.com`, password: 'long enough pass' });
    expect((await signUp(1)).status).toBe(200);
    expect((await signUp(2)).status).toBe(200);
    const third = await signUp(3);
    expect(third.status).toBe(429);
    expect(limitHeaders(third)).toMatchObject({ limit: '2', remaining: '0' });
  });

  it('password reset per e-mail address', async () => {
    expect((await post(a, '/recover', { email: 'one@example.com' })).status).toBe(200);
    expect((await post(a, '/recover', { email: 'ONE@example.com' })).status).toBe(200);
    expect((await post(a, '/recover', { email: 'one@example.com' })).status).toBe(429);
    expect((await post(a, '/recover', { email: 'two@example.com' })).status).toBe(200);
  });

  it('token refresh per user', async () => {
    // The loopback sign-in budget is spent above; sign in through the proxy-trusting instance as another client.
    const session = (await (
      await post(
        b,
        '/token?grant_type=password',
        { email: 'limit1@example.com', password: 'long enough pass' },
        { 'x-forwarded-for': '192.0.2.50' },
      )
    ).json()) as { refresh_token: string };
    const r1 = await post(a, '/token?grant_type=refresh_token', { refresh_token: session.refresh_token });
    expect(r1.status).toBe(200);
    expect(limitHeaders(r1)).toMatchObject({ limit: '2', remaining: '1' });
    const r2 = await post(a, '/token?grant_type=refresh_token', {
      refresh_token: ((await r1.json()) as { refresh_token: string }).refresh_token,
    });
    expect(r2.status).toBe(200);
    const r3 = await post(b, '/token?grant_type=refresh_token', {
      refresh_token: ((await r2.json()) as { refresh_token: string }).refresh_token,
    });
    expect(r3.status).toBe(429);
  });

  it('puts the headers on the other auth answers too', async () => {
    const res = await fetch(`${a.url}/auth/v1/settings`, { headers: { apikey: a.ctx.anonKey } });
    expect(res.status).toBe(200);
    expect(limitHeaders(res).limit).toBe('1000');
    const user = await fetch(`${a.url}/auth/v1/user`, { headers: { apikey: a.ctx.anonKey } });
    expect(user.status).toBe(401);
    expect(limitHeaders(user).limit).toBe('1000');
  });
});
