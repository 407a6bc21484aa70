// OAuth / OpenID sign-in through a real browser and a real provider's login page (oidc-provider on loopback,
// configured as keycloak): supabase-js builds the authorize URL, Chromium follows it through the provider's login
// and consent to our callback and on to the app, where supabase-js exchanges the code (PKCE) or reads the
// fragment (implicit). Also: e-mail matching, linkIdentity / unlinkIdentity, and a nonce that does not match.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { launchChromium } from './support/browser.js';
import { startServerWithProvider } from './support/oidc-provider.js';
import { TEST_CLIENT_OPTIONS, type TestServer } from './support/test-server.js';

const APP = 'http://app.example.test';
let t: TestServer;
let stop: () => Promise<void>;
let browser: Browser;

beforeAll(async () => {
  [{ t, stop }, browser] = await Promise.all([
    startServerWithProvider({ APP_URL: APP, AUTH_MANUAL_LINKING_ENABLED: 'true' }),
    launchChromium(),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await stop?.();
});

const client = (flowType: 'pkce' | 'implicit' = 'pkce'): SupabaseClient =>
  createClient(t.url, t.anonKey, { ...TEST_CLIENT_OPTIONS, auth: { ...TEST_CLIENT_OPTIONS.auth, flowType } });

/**
 * Opens `url` in a fresh browser context, signs in at the provider as `login` (after `atLoginPage`, run when the
 * flow state exists), and answers where the app landed.
 */
async function dance(url: string, login: string, atLoginPage?: () => Promise<unknown>): Promise<URL> {
  const context = await browser.newContext();
  const page: Page = await context.newPage();
  try {
    await page.route(`${APP}/**`, (route) => route.fulfill({ status: 200, body: 'the app' }));
    await page.goto(url);
    await atLoginPage?.();
    await page.fill('input[name=login]', login);
    await page.fill('input[name=password]', 'any');
    await page.click('button[type=submit]');
    await page.waitForURL((u) => u.href.startsWith(APP) || u.pathname.includes('/interaction/'));
    if (!page.url().startsWith(APP)) {
      await page.click('button[type=submit]'); // the consent page
      await page.waitForURL((u) => u.href.startsWith(APP));
    }
    return new URL(page.url());
  } finally {
    await context.close();
  }
}

async function signInWithProvider(sb: SupabaseClient, login: string): Promise<URL> {
  const { data, error } = await sb.auth.signInWithOAuth({
    provider: 'keycloak',
    options: { redirectTo: `${APP}/callback`, skipBrowserRedirect: true },
  });
  expect(error).toBeNull();
  return dance(data.url!, login);
}

let n = 0;
const login = (prefix = 'user') => `${prefix}${++n}.${Date.now()}`;

describe('signInWithOAuth', () => {
  it('PKCE: a new user from the provider, signed in again as the same user', async () => {
    const name = login();
    const sb = client();
    const landed = await signInWithProvider(sb, name);
    expect(landed.hash).toBe('');
    const first = await sb.auth.exchangeCodeForSession(landed.searchParams.get('code')!);
    expect(first.error).toBeNull();
    const user = first.data.user!;
    expect(user.email).toBe(`${name}@idp.example.test`);
    expect(user.email_confirmed_at).toBeTruthy();
    expect(user.app_metadata).toMatchObject({ provider: 'keycloak', providers: ['keycloak'] });
    expect(user.user_metadata).toMatchObject({ sub: name, full_name: `Name of ${name}`, email_verified: true });
    const identities = (await sb.auth.getUserIdentities()).data!.identities;
    expect(identities.map((i) => [i.provider, i.id])).toEqual([['keycloak', name]]);

    const again = client();
    const second = await again.auth.exchangeCodeForSession(
      (await signInWithProvider(again, name)).searchParams.get('code')!,
    );
    expect(second.data.user!.id).toBe(user.id);
  });

  it('implicit: the session arrives in the fragment', async () => {
    const landed = await signInWithProvider(client('implicit'), login());
    const fragment = new URLSearchParams(landed.hash.slice(1));
    const sb = client('implicit');
    const { data, error } = await sb.auth.setSession({
      access_token: fragment.get('access_token')!,
      refresh_token: fragment.get('refresh_token')!,
    });
    expect(error).toBeNull();
    expect(data.user!.app_metadata.provider).toBe('keycloak');
  });

  it('a verified address joins the existing account; an unverified one gets an account of its own', async () => {
    const owner = await t.signUp(`${login('owner')}@idp.example.test`);
    const sb = client();
    const code = (await signInWithProvider(sb, owner.email)).searchParams.get('code')!;
    const joined = await sb.auth.exchangeCodeForSession(code);
    expect(joined.data.user!.id).toBe(owner.id);
    expect(joined.data.user!.identities!.map((i) => i.provider).sort()).toEqual(['email', 'keycloak']);

    const victim = await t.signUp(`${login('unverified')}@example.com`);
    const other = client();
    const code2 = (await signInWithProvider(other, victim.email)).searchParams.get('code')!;
    const separate = await other.auth.exchangeCodeForSession(code2);
    expect(separate.error).toBeNull();
    expect(separate.data.user!.id).not.toBe(victim.id);
    expect(separate.data.user!.email).toBe('');
  });

  it('a nonce that does not match the ID token voids the callback', async () => {
    const sb = client();
    const { data } = await sb.auth.signInWithOAuth({
      provider: 'keycloak',
      options: { redirectTo: `${APP}/callback`, skipBrowserRedirect: true },
    });
    const landed = await dance(
      data.url!,
      login(),
      () => t.db.sql`update auth.flow_state set nonce = 'not-the-nonce-sent' where oauth_state_hash is not null`,
    );
    expect(landed.searchParams.get('code')).toBeNull();
    expect(landed.searchParams.get('error_code')).toBe('bad_oauth_callback');
  });
});

describe('linkIdentity and unlinkIdentity', () => {
  it('links the provider to the signed-in user, unlinks it, and refuses to unlink the last identity', async () => {
    const user = await t.signUp(`${login('linker')}@example.com`);
    const sb = client();
    expect(
      (await sb.auth.signInWithPassword({ email: user.email, password: 'correct-horse-battery-9' })).error,
    ).toBeNull();
    const { data, error } = await sb.auth.linkIdentity({
      provider: 'keycloak',
      options: { redirectTo: `${APP}/callback`, skipBrowserRedirect: true },
    });
    expect(error).toBeNull();
    const providerLogin = login('linked');
    const landed = await dance(data.url!, providerLogin);
    const linked = await sb.auth.exchangeCodeForSession(landed.searchParams.get('code')!);
    expect(linked.data.user!.id).toBe(user.id);
    const identities = (await sb.auth.getUserIdentities()).data!.identities;
    expect(identities.map((i) => i.provider).sort()).toEqual(['email', 'keycloak']);

    // The identity is this user's now: another user cannot link it.
    const other = await t.signUp(`${login('other')}@example.com`);
    const otherClient = client();
    await otherClient.auth.signInWithPassword({ email: other.email, password: 'correct-horse-battery-9' });
    const taken = await otherClient.auth.linkIdentity({
      provider: 'keycloak',
      options: { redirectTo: `${APP}/callback`, skipBrowserRedirect: true },
    });
    const refused = await dance(taken.data.url!, providerLogin);
    expect(refused.searchParams.get('error_code')).toBe('identity_already_exists');

    const keycloak = identities.find((i) => i.provider === 'keycloak')!;
    expect((await sb.auth.unlinkIdentity(keycloak)).error).toBeNull();
    const left = (await sb.auth.getUserIdentities()).data!.identities;
    expect(left.map((i) => i.provider)).toEqual(['email']);
    const last = await sb.auth.unlinkIdentity(left[0]!);
    expect(last.error).toMatchObject({ status: 422, code: 'single_identity_not_deletable' });
  });
});
