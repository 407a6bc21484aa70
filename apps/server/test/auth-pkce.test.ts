// End to end: supabase-js with flowType 'pkce'. An e-mail link (magic link, sign-up confirmation, recovery)
// redirects with `?code=` instead of tokens, and exchangeCodeForSession trades it with the stored verifier;
// a wrong verifier, a reused code and an expired flow state are refused with GoTrue's errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { startTestServer, type TestServer, TEST_CLIENT_OPTIONS, TEST_PASSWORD } from './support/test-server.js';
import { verifyLinkMailedTo } from './support/outbox-mail.js';

const APP = 'http://app.example.test/callback';
let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ WORKERS_ENABLED: 'false', APP_URL: 'http://app.example.test' });
});
afterAll(async () => {
  await t?.stop();
});

let n = 0;
const email = () => `pkce${++n}.${Date.now()}@example.com`;
// persistSession: false keeps the code verifier in the client's memory storage, as a browser keeps it in its own.
const pkceClient = (): SupabaseClient =>
  createClient(t.url, t.anonKey, { ...TEST_CLIENT_OPTIONS, auth: { ...TEST_CLIENT_OPTIONS.auth, flowType: 'pkce' } });

/** Follows the mailed link as a browser would, and answers where it lands. */
async function follow(address: string): Promise<URL> {
  const res = await fetch(await verifyLinkMailedTo(t.db, address, t.url), { redirect: 'manual' });
  expect(res.status).toBe(303);
  return new URL(res.headers.get('location')!);
}

async function magicLinkCode(sb: SupabaseClient, address: string): Promise<string> {
  expect((await sb.auth.signInWithOtp({ email: address, options: { emailRedirectTo: APP } })).error).toBeNull();
  const landed = await follow(address);
  expect(landed.origin + landed.pathname).toBe(APP);
  expect(landed.hash).toBe('');
  return landed.searchParams.get('code')!;
}

const exchange = (body: Record<string, unknown>) =>
  fetch(`${t.url}/auth/v1/token?grant_type=pkce`, {
    method: 'POST',
    headers: { apikey: t.anonKey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

async function expectRefused(res: Response, status: number, code: string): Promise<void> {
  expect(res.status).toBe(status);
  expect(await res.json()).toMatchObject({ error_code: code });
}

describe('PKCE e-mail links', () => {
  it('a magic link (first sign-in: confirmation) lands with ?code=, exchanged once for a session', async () => {
    const address = email();
    const sb = pkceClient();
    const code = await magicLinkCode(sb, address);
    expect(code).toMatch(/^[\w-]{40,}$/);
    const { data, error } = await sb.auth.exchangeCodeForSession(code);
    expect(error).toBeNull();
    expect(data.user!.email).toBe(address);
    expect(data.user!.email_confirmed_at).toBeTruthy();
    expect((await sb.auth.getUser()).data.user!.id).toBe(data.user!.id);
    const claims = JSON.parse(Buffer.from(data.session!.access_token.split('.')[1]!, 'base64url').toString());
    expect(claims.amr.map((a: { method: string }) => a.method)).toEqual(['otp']);

    // The code is spent: neither the same client (its verifier is gone) nor a raw request gets a second session.
    await expectRefused(
      await exchange({ auth_code: code, code_verifier: 'x'.repeat(43) }),
      404,
      'flow_state_not_found',
    );
  });

  it('an existing user: the magic link of a PKCE flow carries a code that signs in', async () => {
    const address = email();
    await t.signUp(address);
    const sb = pkceClient();
    const code = await magicLinkCode(sb, address);
    const ok = await sb.auth.exchangeCodeForSession(code);
    expect(ok.error).toBeNull();
    expect(ok.data.session!.refresh_token).toBeTruthy();
  });

  it('a wrong verifier is 400 bad_code_verifier and does not spend the code', async () => {
    const address = email();
    const sb = pkceClient();
    const code = await magicLinkCode(sb, address);
    const wrong = await exchange({ auth_code: code, code_verifier: 'w'.repeat(64) });
    await expectRefused(wrong, 400, 'bad_code_verifier');
    expect((await sb.auth.exchangeCodeForSession(code)).error).toBeNull();
  });

  it('a flow state older than five minutes is 422 flow_state_expired', async () => {
    const address = email();
    const sb = pkceClient();
    const code = await magicLinkCode(sb, address);
    await t.db.sql`update auth.flow_state set auth_code_issued_at = now() - interval '301 seconds'
      where user_id = (select id from auth.users where email = ${address})`;
    const { error } = await sb.auth.exchangeCodeForSession(code);
    expect(error).toMatchObject({ status: 422, code: 'flow_state_expired' });
  });

  it('an unknown code is 404, missing fields 400', async () => {
    const unknown = exchange({ auth_code: 'not-a-code', code_verifier: 'v'.repeat(43) });
    await expectRefused(await unknown, 404, 'flow_state_not_found');
    await expectRefused(await exchange({ auth_code: 'not-a-code' }), 400, 'validation_failed');
  });

  it('recovery: resetPasswordForEmail lands with a code; the exchange reports the recovery redirect', async () => {
    const address = email();
    await t.signUp(address);
    const sb = pkceClient();
    expect((await sb.auth.resetPasswordForEmail(address, { redirectTo: APP })).error).toBeNull();
    const landed = await follow(address);
    const events: string[] = [];
    sb.auth.onAuthStateChange((event) => {
      events.push(event);
    });
    const { error } = await sb.auth.exchangeCodeForSession(landed.searchParams.get('code')!);
    expect(error).toBeNull();
    expect(events).toContain('PASSWORD_RECOVERY');
    expect((await sb.auth.updateUser({ password: `${TEST_PASSWORD}-new` })).error).toBeNull();
    const signIn = await pkceClient().auth.signInWithPassword({ email: address, password: `${TEST_PASSWORD}-new` });
    expect(signIn.error).toBeNull();
  });

  it('a used link redirects with the error, not a code', async () => {
    const address = email();
    const sb = pkceClient();
    await sb.auth.signInWithOtp({ email: address, options: { emailRedirectTo: APP } });
    const link = await verifyLinkMailedTo(t.db, address, t.url);
    await fetch(link, { redirect: 'manual' });
    const again = new URL((await fetch(link, { redirect: 'manual' })).headers.get('location')!);
    expect(again.searchParams.get('code')).toBeNull();
    expect(new URLSearchParams(again.hash.slice(1)).get('error_code')).toBe('otp_expired');
  });

  it('refuses a malformed challenge, and a challenge without its method', async () => {
    const post = (body: Record<string, unknown>) =>
      fetch(`${t.url}/auth/v1/otp`, {
        method: 'POST',
        headers: { apikey: t.anonKey, 'content-type': 'application/json' },
        body: JSON.stringify({ email: email(), ...body }),
      });
    const short = await post({ code_challenge: 'abc', code_challenge_method: 's256' });
    await expectRefused(short, 400, 'validation_failed');
    const alone = await post({ code_challenge: 'a'.repeat(43) });
    expect(alone.status).toBe(400);
    const method = await post({ code_challenge: 'a'.repeat(43), code_challenge_method: 'md5' });
    expect(method.status).toBe(400);
  });
});
