// OpenID sign-in against a real provider (node-oidc-provider on loopback) in its two ways of giving the profile:
// in the ID token, or (its default, and OpenID Core's reading of scopes) only from the userinfo endpoint with an ID
// token that carries `sub` alone. Either way the account gets the address, the name and the identity data, as
// GoTrue's generic OpenID provider reads them; a provider that gives no address makes no account and the app gets
// GoTrue's error. The provider's login and consent forms are posted over HTTP, as a browser would.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOidcProvider, startServerWithProvider } from './support/oidc-provider.js';
import type { TestServer } from './support/test-server.js';

const APP = 'http://app.example.test';

/** A browser's cookie jar, just enough for the provider's interaction cookies (one host: 127.0.0.1). */
function cookieJar() {
  const cookies = new Map<string, string>();
  return {
    header: () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; '),
    take(res: Response) {
      for (const line of res.headers.getSetCookie()) {
        const [pair = '', ...attributes] = line.split(';');
        const at = pair.indexOf('=');
        const expired = attributes.some((a) => /^\s*(max-age=0|expires=thu, 01 jan 1970)/i.test(a));
        if (expired) cookies.delete(pair.slice(0, at));
        else cookies.set(pair.slice(0, at), pair.slice(at + 1));
      }
    },
  };
}

/**
 * From our /authorize through the provider's login (as `login`) and consent to our callback, and on to the app:
 * the URL the browser lands on.
 */
async function signInThroughProvider(t: TestServer, login: string): Promise<URL> {
  const jar = cookieJar();
  let url = `${t.url}/auth/v1/authorize?provider=keycloak&redirect_to=${encodeURIComponent(`${APP}/done`)}`;
  let init: RequestInit = {};
  let interactions = 0;
  for (let step = 0; step < 20; step++) {
    const res = await fetch(url, { ...init, redirect: 'manual', headers: { ...init.headers, cookie: jar.header() } });
    jar.take(res);
    init = {};
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      url = new URL(location, url).href;
      if (url.startsWith(APP)) return new URL(url);
      continue;
    }
    expect(res.status, await res.text()).toBe(200);
    expect(new URL(url).pathname).toMatch(/^\/interaction\//);
    // The development interactions: a login form first, then the consent form, both posted to the same URL.
    const form: Record<string, string> =
      interactions++ === 0 ? { prompt: 'login', login, password: 'any' } : { prompt: 'consent' };
    init = {
      method: 'POST',
      body: new URLSearchParams(form).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    };
  }
  throw new Error(`no landing at the app after 20 steps (at ${url})`);
}

interface UserJson {
  id: string;
  email: string;
  email_confirmed_at: string | null;
  user_metadata: Record<string, unknown>;
  identities: Array<{ provider: string; identity_data: Record<string, unknown> }>;
}

let n = 0;
const loginName = (prefix: string) => `${prefix}${++n}.${Date.now()}`;

describe.each([
  ['in the ID token', true],
  ['only from userinfo (an ID token with sub alone)', false],
])('a provider that gives the profile %s', (_, claimsInIdToken) => {
  let t: TestServer;
  let idp: FakeOidcProvider;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    ({ t, idp, stop } = await startServerWithProvider({ APP_URL: APP }, { claimsInIdToken }));
  });
  afterAll(async () => {
    await stop?.();
  });

  it('makes the account with its address, name and identity data', async () => {
    const login = loginName('user');
    const landed = await signInThroughProvider(t, login);
    const fragment = new URLSearchParams(landed.hash.slice(1));
    expect(fragment.get('error_description')).toBeNull();
    const token = fragment.get('access_token');
    expect(token).toBeTruthy();
    const res = await fetch(`${t.url}/auth/v1/user`, {
      headers: { apikey: t.anonKey, authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    const user = (await res.json()) as UserJson;
    const email = `${login}@idp.example.test`.toLowerCase();
    expect(user.email).toBe(email);
    expect(user.email_confirmed_at).toBeTruthy();
    expect(user.user_metadata).toMatchObject({
      email,
      email_verified: true,
      name: `Name of ${login}`,
      full_name: `Name of ${login}`,
      sub: login,
      iss: idp.issuer,
    });
    expect(user.identities).toHaveLength(1);
    expect(user.identities[0]).toMatchObject({
      provider: 'keycloak',
      identity_data: { email, email_verified: true, name: `Name of ${login}`, sub: login, provider_id: login },
    });
  });

  it('gives no address: GoTrue error at the app, and no account is made', async () => {
    const login = loginName('noemail');
    const landed = await signInThroughProvider(t, login);
    expect(landed.href.startsWith(`${APP}/done`)).toBe(true);
    for (const params of [landed.searchParams, new URLSearchParams(landed.hash.slice(1))]) {
      expect(params.get('error')).toBe('server_error');
      expect(params.get('error_code')).toBe('unexpected_failure');
      expect(params.get('error_description')).toBe('Error getting user email from external provider');
      expect(params.get('access_token')).toBeNull();
    }
    const [row] = await t.db.sql`select
      (select count(*)::int from auth.identities where provider = 'keycloak' and provider_id = ${login}) as identities,
      (select count(*)::int from auth.users where raw_user_meta_data->>'sub' = ${login}) as users`;
    expect(row).toEqual({ identities: 0, users: 0 });
  });
});
