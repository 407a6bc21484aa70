// Settings each request's transaction sets, as PostgREST sets them: the engine's app settings (app.settings.*) and,
// with requestCookies, the request's cookies as the JSON object request.cookies. All are transaction-local
// (set_config(..., true)): nothing is left on the connection for the next request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRestEngine } from '../src/index.js';
import { type Harness, SERVICE, SUITE_FIXTURE, setup } from './helpers.js';

let plain: Harness;
let withSettings: Harness;
beforeAll(async () => {
  plain = await setup({}, 1, SUITE_FIXTURE);
  withSettings = await setup(
    {
      appSettings: { 'app.settings.app_host': 'localhost', 'app.settings.API_SECRET': 's3cret' },
      requestCookies: true,
      hiddenHeaders: ['cookie'],
    },
    1,
    SUITE_FIXTURE,
  );
});
afterAll(async () => {
  await plain?.close();
  await withSettings?.close();
});

const call = (h: Harness, fn: string, body: unknown, headers: Record<string, string> = {}) =>
  h.req('POST', `/rpc/${fn}`, { claims: SERVICE, body, headers });

describe('app settings', () => {
  it('are readable with current_setting in every request', async () => {
    expect((await call(withSettings, 'setting_of', { name: 'app.settings.app_host' })).json).toBe('localhost');
    // Setting names are case-insensitive in PostgreSQL.
    expect((await call(withSettings, 'setting_of', { name: 'app.settings.api_secret' })).json).toBe('s3cret');
    expect((await call(plain, 'setting_of', { name: 'app.settings.app_host' })).json).toBeNull();
  });
  it('must be named app.settings.<name>: no option sets the role or the claims', async () => {
    for (const name of ['role', 'request.jwt.claims', 'app.settings.', 'app.settings.x; select 1'])
      await expect(
        createRestEngine({ sql: plain.sql, schemas: ['public'], anonRole: 'anon', appSettings: { [name]: 'x' } }),
      ).rejects.toThrow(TypeError);
  });
});

describe('request.cookies', () => {
  it("holds the request's cookies with requestCookies, and only for that request", async () => {
    const cookie = { cookie: 'acookie=cookievalue; second=another=value' };
    expect((await call(withSettings, 'cookie_of', { name: 'acookie' }, cookie)).json).toBe('cookievalue');
    expect((await call(withSettings, 'cookie_of', { name: 'second' }, cookie)).json).toBe('another=value');
    // One connection: the next request, without cookies, sees none.
    expect((await call(withSettings, 'cookie_of', { name: 'acookie' })).json).toBeNull();
    expect((await call(withSettings, 'setting_of', { name: 'request.cookies' })).json).toBe('{}');
  });
  it('is an empty object by default, and a cookie named like a setting sets nothing', async () => {
    const cookie = { cookie: 'acookie=cookievalue; role=postgres' };
    expect((await call(plain, 'cookie_of', { name: 'acookie' }, cookie)).json).toBeNull();
    expect((await call(plain, 'setting_of', { name: 'request.cookies' }, cookie)).json).toBe('{}');
    expect((await call(withSettings, 'setting_of', { name: 'role' }, cookie)).json).toBe('service_role');
  });
  it('leaves the cookie header out of request.headers when it is hidden', async () => {
    const r = await call(withSettings, 'setting_of', { name: 'request.headers' }, { cookie: 'a=b', 'x-seen': '1' });
    expect(JSON.parse(r.json)).toEqual({ 'x-seen': '1' });
  });
});
