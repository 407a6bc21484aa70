// End to end through supabase-js: reauthenticate() mails a nonce, and with AUTH_SECURE_PASSWORD_CHANGE a password
// change from a session older than 24 hours needs it (GoTrue's errors otherwise); SAML SSO, web3 and the OAuth 2.1
// server answer GoTrue's "disabled" errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '@supabase/supabase-js';
import { startTestServer, type TestServer, TEST_CLIENT_OPTIONS } from './support/test-server.js';
import { mailTo } from './support/mail-outbox.js';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({
    WORKERS_ENABLED: 'false',
    AUTH_RATE_LIMIT_SIGN_UP: '1000',
    AUTH_SECURE_PASSWORD_CHANGE: 'true',
    AUTH_ANONYMOUS_SIGN_INS: 'true',
  });
});
afterAll(async () => {
  await t?.stop();
});

let n = 0;
const address = () => `reauth${++n}.${Date.now()}@example.com`;
const nonceOf = async (email: string, count = 1) => (await mailTo(t.db, t.url, email, count)).code;

/** Ages the user's sessions past GoTrue's 24 hours, after which a password change needs a nonce. */
async function ageSessions(userId: string): Promise<void> {
  await t.db.sql`update auth.sessions set created_at = now() - interval '25 hours' where user_id = ${userId}`;
}

describe('reauthenticate and secure password change', () => {
  it('changes the password from a recent session without a nonce', async () => {
    const user = await t.signUp(address());
    const { error } = await user.client.auth.updateUser({ password: 'a-new-password-1' });
    expect(error).toBeNull();
  });

  it('needs the mailed nonce from an older session: missing 400, wrong 422, right once', async () => {
    const user = await t.signUp(address());
    await ageSessions(user.id);
    const missing = await user.client.auth.updateUser({ password: 'a-new-password-2' });
    expect(missing.error?.status).toBe(400);
    expect(missing.error?.code).toBe('reauthentication_needed');
    expect(missing.error?.message).toBe('Password update requires reauthentication');

    const sent = await user.client.auth.reauthenticate();
    expect(sent.error).toBeNull();
    expect(sent.data).toEqual({ user: null, session: null });
    const nonce = await nonceOf(user.email, 1);
    const wrong = await user.client.auth.updateUser({
      password: 'a-new-password-2',
      nonce: nonce === '000000' ? '000001' : '000000',
    });
    expect(wrong.error?.status).toBe(422);
    expect(wrong.error?.code).toBe('reauthentication_not_valid');
    const right = await user.client.auth.updateUser({ password: 'a-new-password-2', nonce });
    expect(right.error).toBeNull();
    const again = await user.client.auth.updateUser({ password: 'a-new-password-3', nonce });
    expect(again.error?.code).toBe('reauthentication_not_valid');
  });

  it('refuses a user without an address, and a caller without a session', async () => {
    const client = createClient(t.url, t.anonKey, TEST_CLIENT_OPTIONS);
    expect((await client.auth.signInAnonymously()).error).toBeNull();
    const { error } = await client.auth.reauthenticate();
    expect(error?.status).toBe(400);
    expect(error?.message).toBe('Reauthentication requires the user to have an email or a phone number');
    const res = await fetch(`${t.url}/auth/v1/reauthenticate`, { headers: { apikey: t.anonKey } });
    expect(res.status).toBe(401);
  });
});

describe('features answered as disabled, in GoTrue words', () => {
  const client = () => createClient(t.url, t.anonKey, TEST_CLIENT_OPTIONS);

  it('SAML 2.0 SSO', async () => {
    const { data, error } = await client().auth.signInWithSSO({ domain: 'example.com' });
    expect(data).toBeNull();
    expect(error?.status).toBe(404);
    expect(error?.code).toBe('saml_provider_disabled');
    expect(error?.message).toBe('SAML 2.0 is disabled');
  });

  it('web3 sign-in', async () => {
    const res = await fetch(`${t.url}/auth/v1/token?grant_type=web3`, {
      method: 'POST',
      headers: { apikey: t.anonKey, 'content-type': 'application/json' },
      body: JSON.stringify({ chain: 'solana', message: 'm', signature: 's' }),
    });
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ error_code: 'web3_provider_disabled', msg: 'Web3 provider is disabled' });
  });

  it('the OAuth 2.1 server, while password grants still work', async () => {
    const res = await fetch(`${t.url}/auth/v1/admin/oauth/clients`, {
      headers: { apikey: t.serviceRoleKey, authorization: `Bearer ${t.serviceRoleKey}` },
    });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error_code: 'feature_disabled', msg: 'OAuth server is disabled' });
    const email = address();
    await t.signUp(email);
    const signedIn = await client().auth.signInWithPassword({ email, password: 'correct-horse-battery-9' });
    expect(signedIn.error).toBeNull();
  });
});
