// Each path family in process, through app.request() without a socket: the same composition root and gateway
// as the served app, so routing, the API-key gate, CORS, claims and each family's error shape are checked
// directly. (The end-to-end tests drive the same app over real sockets with supabase-js.)
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import type { AppEnv } from '../src/context.js';
import { createFamilies } from '../src/families.js';
import { createServices, type Services } from '../src/services/index.js';
import { startTestServer, type TestServer } from './support/test-server.js';

let t: TestServer;
let services: Services;
let app: Hono<AppEnv>;
let key: Record<string, string>;
const json = (res: Response): Promise<any> => res.json();

beforeAll(async () => {
  t = await startTestServer({ WORKERS_ENABLED: 'false' });
  const ctx = t.server.ctx;
  services = await createServices(ctx);
  app = createApp(ctx, createFamilies(ctx, services), { restRateLimits: services.restRateLimits });
  key = { apikey: t.anonKey };
});
afterAll(async () => {
  await services?.close();
  await t?.stop();
});

describe('the gateway', () => {
  it('refuses a request without an API key in the interface shape', async () => {
    const res = await app.request('/rest/v1/auctions');
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ message: 'No API key found in request' });
  });

  it('answers the CORS preflight of supabase-js', async () => {
    const res = await app.request('/rest/v1/auctions', {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
  });

  it('answers an unknown path with 404', async () => {
    const res = await app.request('/nowhere', { headers: key });
    expect(res.status).toBe(404);
  });
});

describe('each family in process', () => {
  it('auth: settings, and a refused token in the auth shape', async () => {
    const settings = await app.request('/auth/v1/settings', { headers: key });
    expect(settings.status).toBe(200);
    expect((await json(settings)).external.email).toBe(true);
    const user = await app.request('/auth/v1/user', { headers: { ...key, authorization: 'Bearer not-a-jwt' } });
    expect(user.status).toBe(401);
    expect(await json(user)).toMatchObject({ error: 'invalid_token', error_code: 'invalid_token' });
  });

  it('rest: the anon role refused a table (401, 42501), and an unknown table as PGRST205', async () => {
    const rows = await app.request('/rest/v1/auctions?select=id', { headers: key });
    expect([rows.status, (await json(rows)).code]).toEqual([401, '42501']);
    const missing = await app.request('/rest/v1/no_such_table', { headers: key });
    expect(missing.status).toBe(404);
    expect((await json(missing)).code).toBe('PGRST205');
  });

  it('storage: the public bucket, and a missing object in the storage shape', async () => {
    const bucket = await app.request('/storage/v1/bucket/lot-images', {
      headers: { ...key, authorization: `Bearer ${t.serviceRoleKey}` },
    });
    expect(bucket.status).toBe(200);
    expect((await json(bucket)).public).toBe(true);
    const missing = await app.request('/storage/v1/object/public/lot-images/nobody/none.jpg', { headers: key });
    expect(missing.status).toBe(404);
    expect(await json(missing)).toMatchObject({ statusCode: '404' });
  });

  it('functions: method, name and caller rules in the functions shape', async () => {
    const get = await app.request('/functions/v1/execute-query', { headers: key });
    expect([get.status, get.headers.get('allow'), (await json(get)).code]).toEqual([
      405,
      'POST, OPTIONS',
      'METHOD_NOT_ALLOWED',
    ]);
    const unknown = await app.request('/functions/v1/no-such-function', { method: 'POST', headers: key });
    expect([unknown.status, (await json(unknown)).code]).toEqual([404, 'NOT_FOUND']);
    const anon = await app.request('/functions/v1/generate-sql', { method: 'POST', headers: key, body: '{}' });
    expect([anon.status, (await json(anon)).code]).toEqual([401, 'UNAUTHORIZED']);
  });

  it('health answers without a key', async () => {
    const res = await app.request('/health');
    expect(res.status).toBe(200);
  });
});
