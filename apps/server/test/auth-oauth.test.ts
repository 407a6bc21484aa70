// OAuth / OpenID sign-in over plain HTTP, where no login page is involved: the authorize redirect (state, nonce,
// PKCE towards the provider, discovered from the issuer), a disabled provider, and callbacks with a missing,
// unknown, expired or provider-refused state. The whole redirect dance is in auth-oauth.browser.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OIDC_CLIENT_ID, type FakeOidcProvider, startServerWithProvider } from './support/oidc-provider.js';
import type { TestServer } from './support/test-server.js';

const APP = 'http://app.example.test';
let t: TestServer;
let idp: FakeOidcProvider;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ t, idp, stop } = await startServerWithProvider({ APP_URL: APP }));
});
afterAll(async () => {
  await stop?.();
});

const get = (path: string) => fetch(`${t.url}/auth/v1${path}`, { redirect: 'manual' });

/** Where a callback sent the browser: the app URL, with GoTrue's error parameters in the query and fragment. */
async function landing(path: string): Promise<{ url: URL; fragment: URLSearchParams }> {
  const res = await get(path);
  expect(res.status).toBe(302);
  const url = new URL(res.headers.get('location')!);
  return { url, fragment: new URLSearchParams(url.hash.slice(1)) };
}

async function authorizeState(): Promise<string> {
  const res = await get(`/authorize?provider=keycloak&redirect_to=${encodeURIComponent(`${APP}/done`)}`);
  return new URL(res.headers.get('location')!).searchParams.get('state')!;
}

describe('GET /authorize', () => {
  it('redirects to the discovered provider with state, nonce and an S256 challenge (no apikey needed)', async () => {
    const res = await get(`/authorize?provider=keycloak&redirect_to=${encodeURIComponent(`${APP}/done`)}`);
    expect(res.status).toBe(302);
    const to = new URL(res.headers.get('location')!);
    expect(to.origin).toBe(idp.issuer);
    expect(to.searchParams.get('client_id')).toBe(OIDC_CLIENT_ID);
    expect(to.searchParams.get('redirect_uri')).toBe(`${t.url}/auth/v1/callback`);
    expect(to.searchParams.get('scope')!.split(' ')).toEqual(expect.arrayContaining(['openid', 'email']));
    expect(to.searchParams.get('code_challenge_method')).toBe('S256');
    expect(to.searchParams.get('state')!.length).toBeGreaterThanOrEqual(43);
    expect(to.searchParams.get('nonce')).toBeTruthy();
    // The state is stored only as a hash.
    const [row] = await t.db.sql`select count(*)::int as n from auth.flow_state
      where oauth_state_hash = ${to.searchParams.get('state')!}`;
    expect(row!.n).toBe(0);
  });

  it('answers the URL as JSON with skip_http_redirect, as supabase-js asks for linkIdentity', async () => {
    const res = await get('/authorize?provider=keycloak&skip_http_redirect=true');
    expect(res.status).toBe(200);
    expect(((await res.json()) as { url: string }).url).toMatch(new RegExp(`^${idp.issuer}`));
  });

  it('a provider that is not configured is 400 with GoTrue error, and settings say which are on', async () => {
    for (const provider of ['google', 'github']) {
      const res = await get(`/authorize?provider=${provider}`);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({
        error_code: 'validation_failed',
        msg: `Unsupported provider: provider ${provider} is not enabled`,
      });
    }
    const res = await fetch(`${t.url}/auth/v1/settings`, { headers: { apikey: t.anonKey } });
    const settings = (await res.json()) as { external: Record<string, boolean> };
    expect(settings.external).toMatchObject({ keycloak: true, google: false, azure: false, apple: false });
  });

  it('refuses a malformed PKCE challenge', async () => {
    const res = await get('/authorize?provider=keycloak&code_challenge=short&code_challenge_method=s256');
    expect(res.status).toBe(400);
  });
});

describe('GET /callback', () => {
  it('without a state: back to APP_URL with bad_oauth_callback', async () => {
    const { url, fragment } = await landing('/callback?code=x');
    expect(url.origin).toBe(APP);
    expect(fragment.get('error_code')).toBe('bad_oauth_callback');
    expect(url.searchParams.get('error_code')).toBe('bad_oauth_callback');
  });

  it('with a state the server never issued: bad_oauth_state', async () => {
    const { fragment } = await landing(`/callback?code=x&state=${'s'.repeat(43)}`);
    expect(fragment.get('error')).toBe('invalid_request');
    expect(fragment.get('error_code')).toBe('bad_oauth_state');
  });

  it('a state is spent by its first callback: replaying it is bad_oauth_state', async () => {
    const state = await authorizeState();
    const first = await landing(`/callback?state=${state}&error=access_denied&error_description=no`);
    expect(first.url.href.startsWith(`${APP}/done`)).toBe(true);
    expect(first.fragment.get('error')).toBe('access_denied');
    const again = await landing(`/callback?state=${state}&code=whatever`);
    expect(again.fragment.get('error_code')).toBe('bad_oauth_state');
  });

  it('a state older than five minutes is refused', async () => {
    const state = await authorizeState();
    await t.db.sql`update auth.flow_state set created_at = now() - interval '301 seconds'
      where provider_type = 'keycloak' and oauth_state_hash is not null`;
    const { fragment } = await landing(`/callback?state=${state}&code=whatever`);
    expect(fragment.get('error_code')).toBe('bad_oauth_state');
    expect(fragment.get('error_description')).toBe('OAuth state has expired');
  });

  it('a code the provider does not know is bad_oauth_callback, and no user is made', async () => {
    const before = await t.db.sql`select count(*)::int as n from auth.users`;
    const state = await authorizeState();
    const { fragment } = await landing(`/callback?state=${state}&code=forged&iss=${encodeURIComponent(idp.issuer)}`);
    expect(fragment.get('error_code')).toBe('bad_oauth_callback');
    const after = await t.db.sql`select count(*)::int as n from auth.users`;
    expect(after[0]!.n).toBe(before[0]!.n);
  });
});
