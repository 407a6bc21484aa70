// Rate limits of /rest/v1. First the check inside the real gateway on a real socket, with the clock
// injected into the limiter and the tier cache: the minute and hour windows, tiers from real memberships and a tier
// change after the cache's TTL, heavy RPCs counting five. Then the whole server: headers on every answer, the 429
// body, limits off, and two instances sharing counters through the Postgres store.
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTokenVerifier, memoryRateLimitStore, RateLimiter, signApiKey } from '@auction-ops/auth-core';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import type { AppEnv } from '../src/context.js';
import { createLogger } from '../src/logger.js';
import { gateway } from '../src/middleware/gateway.js';
import { restRateLimitCheck } from '../src/middleware/rate-limit.js';
import { createTierCache } from '../src/services/tier-cache.js';
import { loadConfig, migrationSets, type RunningServer, startServer } from '../src/index.js';
import { awaitWindowRoom } from './support/rate-windows.js';

const SECRET = 'rate-limits-secret-'.padEnd(40, 'r');
const T0 = Date.UTC(2026, 0, 5, 10, 0, 0); // on the hour: the minute and hour windows start together
let db: TestDatabase;
const dirs: string[] = [];

const sign = (claims: Record<string, unknown>) =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(SECRET));

async function newUser(email: string): Promise<string> {
  const [row] = await db.sql<Array<{ id: string }>>`insert into auth.users (email) values (${email}) returning id`;
  return row.id;
}
async function newAuction(slug: string, ownerId: string, tier: string): Promise<string> {
  const [row] = await db.sql<Array<{ id: string }>>`
    insert into public.auctions (name, slug, created_by, subscription_tier)
      values (${slug}, ${slug}, ${ownerId}, ${tier})
    returning id`;
  return row.id;
}

beforeAll(async () => {
  db = await createTestDatabase(migrationSets);
});
afterAll(async () => {
  await db?.drop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('the limiter with an injected clock', () => {
  let now = T0;
  const clock = () => now;
  let url: string;
  let anonKey: string;
  let close: () => Promise<void>;

  beforeAll(async () => {
    anonKey = await signApiKey(SECRET, 'anon');
    const app = new Hono<AppEnv>();
    // Wired as the server wires it: a check inside the gateway, after the API-key gate.
    const check = restRateLimitCheck({
      limiter: new RateLimiter(memoryRateLimitStore({ now: clock }), clock),
      tiers: createTierCache({ sql: db.sql, ttlMs: 30_000, now: clock }),
      rules: {
        free: [
          { limit: 60, windowSeconds: 60 },
          { limit: 1000, windowSeconds: 3600 },
        ],
        pro: [
          { limit: 300, windowSeconds: 60 },
          { limit: 10_000, windowSeconds: 3600 },
        ],
        enterprise: [
          { limit: 3000, windowSeconds: 60 },
          { limit: 100_000, windowSeconds: 3600 },
        ],
      },
      heavyRpcs: new Set(['get_location_stats', 'get_defect_trends']),
      heavyCost: 5,
      now: clock,
    });
    app.use(
      '*',
      gateway({
        log: createLogger('silent'),
        verifier: createTokenVerifier(SECRET),
        trustedProxyCidrs: '',
        afterGate: { prefix: '/rest/v1', check },
      }),
    );
    app.all('/rest/v1/*', (c) => c.json([]));
    const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
    });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => new Promise((r) => server.close(() => r()));
  });
  afterAll(() => close?.());

  const get = (path: string, token?: string, method = 'GET') =>
    fetch(`${url}/rest/v1${path}`, {
      method,
      headers: { apikey: anonKey, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    });
  const counters = (res: Response) => [
    res.headers.get('x-ratelimit-limit'),
    res.headers.get('x-ratelimit-remaining'),
    res.headers.get('x-ratelimit-reset'),
  ];

  it('free: 60 a minute, then 429 until the next minute; the hour window keeps counting', async () => {
    now = T0 + 10_000;
    for (let i = 1; i <= 60; i++) {
      const res = await get('/items');
      expect(res.status).toBe(200);
      expect(counters(res)).toEqual(['60', String(60 - i), String(T0 / 1000 + 60)]);
    }
    const refused = await get('/items');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('50');
    expect(counters(refused)).toEqual(['60', '0', String(T0 / 1000 + 60)]);
    expect(await refused.json()).toEqual({
      code: 'rate_limit_exceeded',
      details: 'limit of 60 requests per minute for this address',
      hint: 'wait until the time in Retry-After, or use a higher subscription tier',
      message: 'rate limit exceeded',
    });
    // The next minute: allowed again; 61 counted in the hour (the refused one too), so 938 remain of 1,000 after this.
    now = T0 + 60_000;
    const next = await get('/items');
    expect(next.status).toBe(200);
    expect(counters(next)).toEqual(['60', '59', String(T0 / 1000 + 120)]);
  });

  it('the hour window: 1,000 an hour, shown once it is the one closest to running out', async () => {
    // 62 used this hour. Spend the rest a minute at a time (the minute window never runs out).
    let used = 62;
    for (let minute = 2; used < 1000; minute++) {
      now = T0 + minute * 60_000;
      const batch = Math.min(60, 1000 - used);
      for (let i = 0; i < batch; i++) expect((await get('/items')).status).toBe(200);
      used += batch;
    }
    now += 60_000;
    const refused = await get('/items');
    expect(refused.status).toBe(429);
    expect(counters(refused)).toEqual(['1000', '0', String(T0 / 1000 + 3600)]);
    expect(refused.headers.get('retry-after')).toBe(String(3600 - (now - T0) / 1000));
    expect(((await refused.json()) as { details: string }).details).toBe(
      'limit of 1000 requests per hour for this address',
    );
    now = T0 + 3_600_000;
    expect((await get('/items')).status).toBe(200);
  });

  it('heavy RPCs count five, other RPCs one', async () => {
    now = T0 + 2 * 3_600_000;
    expect(counters(await get('/rpc/get_location_stats', undefined, 'POST'))[1]).toBe('55');
    expect(counters(await get('/rpc/get_defect_trends?p_days=7'))[1]).toBe('50');
    expect(counters(await get('/rpc/get_location_submission_types_ordered', undefined, 'POST'))[1]).toBe('49');
    // Nine heavy calls need 45 more than the 49 left: the tenth call is refused.
    for (let i = 0; i < 9; i++) expect((await get('/rpc/get_location_stats', undefined, 'POST')).status).toBe(200);
    const refused = await get('/rpc/get_location_stats', undefined, 'POST');
    expect(refused.status).toBe(429);
  });

  it('the tier comes from the caller’s auctions, is cached, and a change takes effect after the TTL', async () => {
    now = T0 + 3 * 3_600_000;
    const ownerId = await newUser('tier-owner@limits.test');
    const auctionId = await newAuction('tier-auction', ownerId, 'free');
    const token = await sign({ sub: ownerId, role: 'authenticated' });
    expect(counters(await get('/items', token))[0]).toBe('60');
    await db.sql`update public.auctions set subscription_tier = 'pro' where id = ${auctionId}`;
    now += 10_000; // inside the cache's 30 s: still free
    expect(counters(await get('/items', token))[0]).toBe('60');
    now += 25_000; // past it: pro
    const pro = await get('/items', token);
    expect(counters(pro).slice(0, 2)).toEqual(['300', String(300 - 3)]);
    // The highest tier among several auctions; anonymous callers from the same address stay free.
    const other = await newUser('tier-other@limits.test');
    await newAuction('tier-enterprise', other, 'enterprise');
    await db.sql`insert into public.auction_members (auction_id, user_id, role)
      select id, ${ownerId}, 'team_member' from public.auctions where slug = 'tier-enterprise'`;
    now += 31_000;
    expect(counters(await get('/items', token))[0]).toBe('3000');
    expect(counters(await get('/items'))[0]).toBe('60');
    // A token whose subject has no memberships is free.
    const lonely = await sign({ sub: await newUser('tier-none@limits.test'), role: 'authenticated' });
    expect(counters(await get('/items', lonely))[0]).toBe('60');
  });
});

describe('the server', () => {
  const boot = (extra: Record<string, string>) => {
    const dir = mkdtempSync(join(tmpdir(), 'rate-limits-'));
    dirs.push(dir);
    return startServer(
      loadConfig({
        PORT: '0',
        DATABASE_URL: db.ownerUrl,
        DATA_DIR: dir,
        LOG_LEVEL: 'silent',
        JWT_SECRET: SECRET,
        WORKERS_ENABLED: 'false',
        // Loopback as a trusted proxy: each test speaks for its own client address through X-Forwarded-For.
        TRUSTED_PROXY_CIDRS: '127.0.0.1/32',
        ...extra,
      }),
    );
  };
  let a: RunningServer;
  let b: RunningServer;
  let off: RunningServer;
  let token: string;
  beforeAll(async () => {
    // A signed-in user without auctions: free, like anonymous callers (who may read nothing here).
    token = await sign({ sub: await newUser('server-user@limits.test'), role: 'authenticated' });
    [a, b, off] = await Promise.all([
      boot({ RATE_LIMITS_STORE: 'postgres' }),
      boot({ RATE_LIMITS_STORE: 'postgres' }),
      boot({ RATE_LIMITS_ENABLED: 'false' }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close(), off?.close()]);
  });

  const call = (server: RunningServer, client: string, path: string, init: RequestInit = {}) =>
    fetch(`${server.url}/rest/v1${path}`, {
      ...init,
      headers: {
        apikey: server.ctx.anonKey,
        authorization: `Bearer ${token}`,
        'x-forwarded-for': client,
        'x-forwarded-proto': 'https',
        'content-type': 'application/json',
      },
    });

  it('headers on answers of every kind, counted per client address, counters shared between instances', async () => {
    // Counted in minute windows of the wall clock: a count across a boundary would start again.
    await awaitWindowRoom(60_000);
    const ok = await call(a, '10.1.0.1', '/auctions?select=id');
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-ratelimit-limit')).toBe('60');
    expect(ok.headers.get('x-ratelimit-remaining')).toBe('59');
    const missing = await call(b, '10.1.0.1', '/no_such_table');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-ratelimit-remaining')).toBe('58');
    const heavy = await call(a, '10.1.0.1', '/rpc/get_location_stats', { method: 'POST', body: '{}' });
    expect(heavy.headers.get('x-ratelimit-remaining')).toBe('53');
    // Another client address has its own counters.
    expect((await call(b, '10.1.0.2', '/auctions')).headers.get('x-ratelimit-remaining')).toBe('59');
    // Exposed to browsers like the auth family's.
    expect(ok.headers.get('access-control-expose-headers')?.toLowerCase()).toContain('x-ratelimit-remaining');
  });

  it('refuses with 429 in the data error shape once the instances together pass the limit', async () => {
    await awaitWindowRoom(60_000);
    for (let i = 0; i < 60; i++) {
      const res = await call(i % 2 ? a : b, '10.1.0.3', '/auctions?select=id');
      expect(res.status).toBe(200);
    }
    const refused = await call(a, '10.1.0.3', '/auctions?select=id');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(refused.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(refused.headers.get('x-request-id')).toMatch(/./);
    expect(await refused.json()).toMatchObject({
      code: 'rate_limit_exceeded',
      details: 'limit of 60 requests per minute for this address',
      message: 'rate limit exceeded',
    });
    // Auth keeps its own limits: the same address still signs in.
    const auth = await fetch(`${b.url}/auth/v1/settings`, {
      headers: { apikey: b.ctx.anonKey, 'x-forwarded-for': '10.1.0.3', 'x-forwarded-proto': 'https' },
    });
    expect(auth.status).toBe(200);
  });

  it('RATE_LIMITS_ENABLED=false: no limit and no headers', async () => {
    for (let i = 0; i < 65; i++) expect((await call(off, '10.1.0.4', '/auctions?select=id')).status).toBe(200);
    const res = await call(off, '10.1.0.4', '/auctions?select=id');
    expect(res.headers.get('x-ratelimit-limit')).toBeNull();
  });
});
