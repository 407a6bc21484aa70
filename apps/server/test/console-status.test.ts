// The admin console over HTTP without a browser: the page and its hashed assets are served from this origin with
// the caching and security headers they need, and GET /console/api/status is for super admins only.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type SignedUpUser, startTestServer, type TestServer } from './support/test-server.js';

let server: TestServer;
let root: SignedUpUser;
let mia: SignedUpUser;

beforeAll(async () => {
  server = await startTestServer();
  [root, mia] = await Promise.all([server.signUp('root@status.test'), server.signUp('mia@status.test')]);
  await server.db.sql`insert into public.super_admins (user_id) values (${root.id})`;
});

afterAll(async () => {
  await server?.stop();
});

const status = (token?: string) =>
  fetch(`${server.url}/console/api/status`, token ? { headers: { authorization: `Bearer ${token}` } } : {});

it('serves the page with a same-origin policy and its hashed script and style sheet for good', async () => {
  const page = await fetch(`${server.url}/console`);
  expect(page.status).toBe(200);
  expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
  expect(page.headers.get('cache-control')).toBe('no-cache');
  const html = await page.text();
  expect(html).toContain(`data-anon-key="${server.anonKey}"`);
  const assets = [...html.matchAll(/\/console\/assets\/(console-[0-9a-f]{16}\.(?:js|css))/g)].map((m) => m[1]);
  expect(assets).toHaveLength(2);
  for (const name of assets) {
    const asset = await fetch(`${server.url}/console/assets/${name}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(0);
  }
  expect((await fetch(`${server.url}/console/assets/console-0000000000000000.js`)).status).toBe(404);
});

it('answers the status to a super admin only: 401 without or with a bad token, 403 to anyone else', async () => {
  expect((await status()).status).toBe(401);
  expect((await status('not-a-token')).status).toBe(401);
  expect((await status(server.anonKey)).status).toBe(403);
  expect((await status(server.serviceRoleKey)).status).toBe(403);
  const refused = await status(mia.token);
  expect(refused.status).toBe(403);
  expect(await refused.json()).toEqual({ message: 'only super admins may read the server status' });
  const allowed = await status(root.token);
  expect(allowed.status).toBe(200);
  expect(allowed.headers.get('cache-control')).toBe('no-store');
  expect(await allowed.json()).toMatchObject({
    processes: 1,
    database: { status: 'up' },
    replicas: [],
    limits: { rest_max_rows: 1000, db_pool_size: 20 },
  });
});

it('backups: super admins only; a server without BACKUP_TARGET (here an external database) says so and refuses POST', async () => {
  const backups = (token: string, method = 'GET') =>
    fetch(`${server.url}/console/api/backups`, { method, headers: { authorization: `Bearer ${token}` } });
  expect((await backups(mia.token)).status).toBe(403);
  expect((await backups(mia.token, 'POST')).status).toBe(403);
  const listed = await backups(root.token);
  expect(listed.status).toBe(200);
  expect(await listed.json()).toEqual({ configured: false, backups: [] });
  const created = await backups(root.token, 'POST');
  expect(created.status).toBe(409);
  expect(await created.json()).toMatchObject({ message: expect.stringMatching(/BACKUP_TARGET/) });
});
