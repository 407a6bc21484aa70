// End to end: supabase-js signInAnonymously against the real server: the is_anonymous claim, conversion by
// updateUser({email, password}), its own rate limit, the switch, and the domain refusing anonymous writes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type AuthChangeEvent, type SupabaseClient } from '@supabase/supabase-js';
import { decodeJwt } from 'jose';
import { startTestServer, type TestServer, TEST_CLIENT_OPTIONS } from './support/test-server.js';
import { awaitWindowRoom } from './support/rate-windows.js';

const LIMIT = 6;
let on: TestServer;
let off: TestServer;

beforeAll(async () => {
  on = await startTestServer({
    WORKERS_ENABLED: 'false',
    AUTH_ANONYMOUS_SIGN_INS: 'true',
    AUTH_RATE_LIMIT_ANONYMOUS: String(LIMIT),
    AUTH_RATE_LIMIT_SIGN_IN: '1000',
  });
  off = await startTestServer({ WORKERS_ENABLED: 'false' });
});
afterAll(async () => {
  await Promise.all([on?.stop(), off?.stop()]);
});

function client(t: TestServer): SupabaseClient {
  return createClient(t.server.url, t.server.ctx.anonKey, TEST_CLIENT_OPTIONS);
}

async function tokenClaims(sb: SupabaseClient) {
  const { data } = await sb.auth.getSession();
  return decodeJwt(data.session!.access_token) as { is_anonymous: boolean; amr: Array<{ method: string }> };
}

describe('anonymous sign-in', () => {
  it('signs in without credentials: is_anonymous in the user and the token, amr anonymous', async () => {
    const sb = client(on);
    const events: AuthChangeEvent[] = [];
    sb.auth.onAuthStateChange((event) => {
      events.push(event);
    });
    const { data, error } = await sb.auth.signInAnonymously({ options: { data: { nickname: 'yard' } } });
    expect(error).toBeNull();
    expect(data.user).toMatchObject({ is_anonymous: true, email: '', user_metadata: { nickname: 'yard' } });
    expect(events).toContain('SIGNED_IN');
    const claims = await tokenClaims(sb);
    expect(claims.is_anonymous).toBe(true);
    expect(claims.amr.map((a) => a.method)).toEqual(['anonymous']);
    const settings = await fetch(`${on.server.url}/auth/v1/settings`, { headers: { apikey: on.server.ctx.anonKey } });
    expect(((await settings.json()) as { external: { anonymous_users: boolean } }).external.anonymous_users).toBe(true);
  });

  it('converts by updateUser({email, password}); a password alone is refused', async () => {
    const sb = client(on);
    expect((await sb.auth.signInAnonymously()).error).toBeNull();
    const alone = await sb.auth.updateUser({ password: 'correct horse battery' });
    expect(alone.error).toMatchObject({ status: 422, code: 'validation_failed' });

    const address = `converted.${Date.now()}@example.com`;
    const converted = await sb.auth.updateUser({ email: address, password: 'correct horse battery' });
    expect(converted.error).toBeNull();
    expect(converted.data.user).toMatchObject({ email: address, is_anonymous: false });
    expect(converted.data.user!.app_metadata).toMatchObject({ provider: 'email' });
    expect(converted.data.user!.identities?.map((i) => i.provider)).toEqual(['email']);
    expect((await sb.auth.refreshSession()).error).toBeNull();
    expect((await tokenClaims(sb)).is_anonymous).toBe(false);

    const again = client(on);
    const signIn = await again.auth.signInWithPassword({ email: address, password: 'correct horse battery' });
    expect(signIn.error).toBeNull();
    expect(signIn.data.user!.id).toBe(converted.data.user!.id);
  });

  it('the domain refuses an anonymous user what a public reader may not do, until converted', async () => {
    const sb = client(on);
    expect((await sb.auth.signInAnonymously()).error).toBeNull();
    const slug = `anon-${Date.now()}`;
    const refused = await sb.from('auctions').insert({ name: 'Anon auction', slug }).select('id');
    expect(refused.error).toMatchObject({ code: '42501' });
    const profile = await sb.from('users').select('id');
    expect(profile.error).toBeNull();
    expect(profile.data).toEqual([]);

    await sb.auth.updateUser({ email: `anon.${Date.now()}@example.com`, password: 'correct horse battery' });
    await sb.auth.refreshSession();
    const allowed = await sb.from('auctions').insert({ name: 'Anon auction', slug }).select('id');
    expect(allowed.error).toBeNull();
    expect(allowed.data).toHaveLength(1);
  });

  it('storage: reads what a public reader reads, uploads nothing, not even under its own folder', async () => {
    const sb = client(on);
    const { data } = await sb.auth.signInAnonymously();
    const own = `${data.user!.id}/dot.png`;
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
      'base64',
    );
    const upload = await sb.storage.from('lot-images').upload(own, png, { contentType: 'image/png' });
    expect(upload.error).toMatchObject({ statusCode: '403' });
    const list = await sb.storage.from('lot-images').list();
    expect(list.error).toBeNull();

    await sb.auth.updateUser({ email: `anon.storage.${Date.now()}@example.com`, password: 'correct horse battery' });
    await sb.auth.refreshSession();
    const converted = await sb.storage.from('lot-images').upload(own, png, { contentType: 'image/png' });
    expect(converted.error).toBeNull();
  });

  it('has its own per-IP limit: 429 rate_limit_exceeded past AUTH_RATE_LIMIT_ANONYMOUS', async () => {
    // Counted in hour windows of the wall clock (AUTH_RATE_LIMIT_WINDOW_SECONDS): not across a boundary.
    await awaitWindowRoom(3_600_000, 10_000);
    const codes: Array<string | undefined> = [];
    for (let i = 0; i < LIMIT + 1; i++) codes.push((await client(on).auth.signInAnonymously()).error?.code);
    const first = codes.indexOf('rate_limit_exceeded');
    expect(first).toBeGreaterThanOrEqual(0);
    expect(codes.slice(first).every((code) => code === 'rate_limit_exceeded')).toBe(true);
    // Password sign-ups are counted apart and still go through.
    const signUp = await client(on).auth.signUp({ email: `apart.${Date.now()}@example.com`, password: 'x'.repeat(12) });
    expect(signUp.error).toBeNull();
  });

  it('is off by default: 422 anonymous_provider_disabled', async () => {
    const { data, error } = await client(off).auth.signInAnonymously();
    expect(error).toMatchObject({ status: 422, code: 'anonymous_provider_disabled' });
    expect(data.session).toBeNull();
  });
});
