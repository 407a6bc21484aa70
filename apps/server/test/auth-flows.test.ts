// End to end: supabase-js (auth-js) against the real server over a real socket, on a real database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type AuthChangeEvent, type SupabaseClient } from '@supabase/supabase-js';
import { SignJWT } from 'jose';
import type { TestDatabase } from '@auction-ops/database/testing';
import { startTestServer, type TestServer, TEST_CLIENT_OPTIONS } from './support/test-server.js';
import type { RunningServer } from '@auction-ops/server';

let t: TestServer;
let db: TestDatabase;
let server: RunningServer;
const APP_URL = 'http://app.example.test';

beforeAll(async () => {
  t = await startTestServer({
    JWT_SECRET: 'x'.repeat(40),
    APP_URL,
    WORKERS_ENABLED: 'false',
    AUTH_RATE_LIMIT_SIGN_UP: '1000',
    AUTH_RATE_LIMIT_SIGN_IN: '1000',
    AUTH_RATE_LIMIT_RECOVER: '1000',
  });
  ({ db, server } = t);
});
afterAll(async () => {
  await t?.stop();
});

function client(key = server.ctx.anonKey): SupabaseClient {
  return createClient(server.url, key, TEST_CLIENT_OPTIONS);
}
let n = 0;
const email = () => `user${++n}.${Date.now()}@example.com`;
const PASSWORD = 'correct horse battery';

async function outboxLink(to: string): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const [row] = await db.sql<Array<{ text_body: string }>>`
      select text_body from auth.mail_outbox where to_email = ${to} order by created_at desc limit 1`;
    const link = row?.text_body.match(/https?:\/\/\S+\/auth\/v1\/verify\S+/)?.[0];
    // PORT 0: the configured PUBLIC_URL cannot know the port the server got, so aim the link at it.
    if (link) return link.replace(/^https?:\/\/[^/]+/, server.url);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no mail to ${to}`);
}

describe('sign-up, sign-in, user', () => {
  it('signs up (auto-confirmed), signs in, reads and updates the user', async () => {
    const sb = client();
    const address = email();
    const events: AuthChangeEvent[] = [];
    sb.auth.onAuthStateChange((event) => {
      events.push(event);
    });
    const signUp = await sb.auth.signUp({
      email: address,
      password: PASSWORD,
      options: { data: { full_name: 'Ada Lovelace' } },
    });
    expect(signUp.error).toBeNull();
    expect(signUp.data.user?.email).toBe(address);
    expect(signUp.data.user?.user_metadata.full_name).toBe('Ada Lovelace');
    expect(signUp.data.session?.access_token).toBeTruthy();

    const [profile] = await db.sql`select email, full_name from public.users where id = ${signUp.data.user!.id}`;
    expect(profile).toEqual({ email: address, full_name: 'Ada Lovelace' });

    const signIn = await sb.auth.signInWithPassword({ email: address.toUpperCase(), password: PASSWORD });
    expect(signIn.error).toBeNull();
    const session = signIn.data.session!;
    expect(session.expires_in).toBe(3600);
    expect(session.token_type).toBe('bearer');
    const claims = JSON.parse(Buffer.from(session.access_token.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({
      aud: 'authenticated',
      iss: `${server.ctx.config.PUBLIC_URL}/auth/v1`,
      sub: signIn.data.user!.id,
      email: address,
      phone: '',
      role: 'authenticated',
      aal: 'aal1',
      is_anonymous: false,
      session_id: expect.any(String),
      app_metadata: { provider: 'email', providers: ['email'] },
      user_metadata: { full_name: 'Ada Lovelace' },
    });
    expect(claims.exp - claims.iat).toBe(3600);
    expect(claims.amr[0].method).toBe('password');

    const got = await sb.auth.getUser();
    expect(got.error).toBeNull();
    expect(got.data.user?.id).toBe(signIn.data.user!.id);

    const updated = await sb.auth.updateUser({ data: { avatar_url: 'https://img.test/a.png' } });
    expect(updated.error).toBeNull();
    expect(updated.data.user?.user_metadata).toMatchObject({
      full_name: 'Ada Lovelace',
      avatar_url: 'https://img.test/a.png',
    });
    const [synced] = await db.sql`select avatar_url from public.users where id = ${signIn.data.user!.id}`;
    expect(synced.avatar_url).toBe('https://img.test/a.png');
    expect(events).toEqual(expect.arrayContaining(['SIGNED_IN', 'USER_UPDATED']));
  });

  it('changes the password with an access token and ends the other sessions', async () => {
    const address = email();
    const a = client();
    const b = client();
    await a.auth.signUp({ email: address, password: PASSWORD });
    await b.auth.signInWithPassword({ email: address, password: PASSWORD });
    const same = await b.auth.updateUser({ password: PASSWORD });
    expect(same.error?.code).toBe('same_password');
    const changed = await b.auth.updateUser({ password: 'a brand new passphrase' });
    expect(changed.error).toBeNull();
    const old = await client().auth.signInWithPassword({ email: address, password: PASSWORD });
    expect(old.error?.code).toBe('invalid_grant');
    expect((await b.auth.getUser()).error).toBeNull();
    // a's session was ended by the change: its token's session is gone.
    const gone = await a.auth.getUser();
    expect(gone.error?.name).toBe('AuthSessionMissingError');
  });
});

describe('the error codes of docs/errors.md', () => {
  it('invalid_grant, user_already_exists, weak_password, invalid_token, not_authenticated', async () => {
    const sb = client();
    const address = email();
    await sb.auth.signUp({ email: address, password: PASSWORD });

    const wrong = await client().auth.signInWithPassword({ email: address, password: 'wrong password!' });
    expect(wrong.error).toMatchObject({ status: 400, code: 'invalid_grant' });
    const unknown = await client().auth.signInWithPassword({ email: `nobody.${address}`, password: 'wrong password!' });
    expect(unknown.error).toMatchObject({ status: 400, code: 'invalid_grant', message: wrong.error!.message });

    const dup = await client().auth.signUp({ email: address, password: PASSWORD });
    expect(dup.error).toMatchObject({ status: 400, code: 'user_already_exists' });

    const weak = await client().auth.signUp({ email: email(), password: 'short' });
    expect(weak.error).toMatchObject({ status: 422, code: 'weak_password', name: 'AuthWeakPasswordError' });
    expect((weak.error as unknown as { reasons: string[] }).reasons).toEqual(['length']);
    const sameAsEmail = await client().auth.signUp({
      email: 'same.as.email@example.com',
      password: 'same.as.email@example.com',
    });
    expect(sameAsEmail.error).toMatchObject({ status: 422, code: 'weak_password' });

    const bad = await client().auth.getUser('not.a.jwt');
    expect(bad.error).toMatchObject({ status: 401, code: 'invalid_token' });

    // A correctly signed access token past its exp: 401 invalid_token, saying it expired.
    const now = Math.floor(Date.now() / 1000);
    const { data: signedIn } = await client().auth.signInWithPassword({ email: address, password: PASSWORD });
    const expired = await new SignJWT({ role: 'authenticated' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(signedIn.user!.id)
      .setIssuedAt(now - 7200)
      .setExpirationTime(now - 3600)
      .sign(new TextEncoder().encode(server.ctx.jwtSecret));
    const late = await fetch(`${server.url}/auth/v1/user`, {
      headers: { apikey: server.ctx.anonKey, authorization: `Bearer ${expired}` },
    });
    expect(late.status).toBe(401);
    expect((await late.json()) as object).toMatchObject({
      error_code: 'invalid_token',
      msg: expect.stringMatching(/expired/),
    });

    // No Authorization: the raw body as the clients send it, read by plain HTTP as its clients do.
    const res = await fetch(`${server.url}/auth/v1/user`, { headers: { apikey: server.ctx.anonKey } });
    expect(res.status).toBe(401);
    expect((await res.json()) as object).toMatchObject({
      error: 'not_authenticated',
      error_description: expect.any(String),
      error_code: 'not_authenticated',
    });
  });

  it('rejects malformed and oversized bodies in the auth shape', async () => {
    const headers = { apikey: server.ctx.anonKey, 'content-type': 'application/json' };
    const malformed = await fetch(`${server.url}/auth/v1/token?grant_type=password`, {
      method: 'POST',
      headers,
      body: '{"email":',
    });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: string }).error).toBe('bad_json');
    const huge = await fetch(`${server.url}/auth/v1/signup`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ email: 'a@b.co', password: 'x'.repeat(100_000) }),
    });
    expect(huge.status).toBe(413);
    const grant = await fetch(`${server.url}/auth/v1/token?grant_type=magic`, { method: 'POST', headers, body: '{}' });
    expect(grant.status).toBe(400);
  });
});

describe('refresh tokens', () => {
  it('rotates on each refresh; parallel refreshes of one token both succeed; late reuse ends the session', async () => {
    const sb = client();
    const address = email();
    await sb.auth.signUp({ email: address, password: PASSWORD });
    const { data } = await sb.auth.signInWithPassword({ email: address, password: PASSWORD });
    const first = data.session!.refresh_token;
    expect(first.length).toBeGreaterThanOrEqual(22);
    const [stored] = await db.sql`select count(*)::int as n from auth.refresh_tokens where token_hash = ${first}`;
    expect(stored.n).toBe(0);

    const [r1, r2] = await Promise.all([
      client().auth.refreshSession({ refresh_token: first }),
      client().auth.refreshSession({ refresh_token: first }),
    ]);
    expect(r1.error).toBeNull();
    expect(r2.error).toBeNull();
    expect(r1.data.session!.refresh_token).toBe(r2.data.session!.refresh_token);
    expect(r1.data.session!.refresh_token).not.toBe(first);

    const next = await client().auth.refreshSession({ refresh_token: r1.data.session!.refresh_token });
    expect(next.error).toBeNull();

    // A minute later (the reuse window is 10 s): move the rotation back in time instead of waiting.
    await db.sql`update auth.refresh_tokens set revoked_at = now() - interval '1 minute' where revoked_at is not null`;
    const late = await client().auth.refreshSession({ refresh_token: first });
    expect(late.error).toMatchObject({ status: 400, code: 'invalid_grant' });
    // ... and the whole session ended: the newest token is dead too.
    const after = await client().auth.refreshSession({ refresh_token: next.data.session!.refresh_token });
    expect(after.error).toMatchObject({ status: 400, code: 'invalid_grant' });
  });

  it('emits TOKEN_REFRESHED and SIGNED_OUT', async () => {
    const sb = client();
    const events: AuthChangeEvent[] = [];
    sb.auth.onAuthStateChange((event) => {
      events.push(event);
    });
    const address = email();
    await sb.auth.signUp({ email: address, password: PASSWORD });
    expect((await sb.auth.refreshSession()).error).toBeNull();
    expect((await sb.auth.signOut()).error).toBeNull();
    expect(events).toEqual(expect.arrayContaining(['SIGNED_IN', 'TOKEN_REFRESHED', 'SIGNED_OUT']));
  });
});

describe('sign-out scopes', () => {
  async function threeSessions() {
    const address = email();
    await client().auth.signUp({ email: address, password: PASSWORD });
    const clients = [client(), client(), client()];
    for (const c of clients)
      expect((await c.auth.signInWithPassword({ email: address, password: PASSWORD })).error).toBeNull();
    const tokens = await Promise.all(clients.map(async (c) => (await c.auth.getSession()).data.session!));
    return { clients, tokens };
  }
  const alive = async (refresh: string) =>
    (await client().auth.refreshSession({ refresh_token: refresh })).error === null;

  it('local ends only this session', async () => {
    const { clients, tokens } = await threeSessions();
    expect((await clients[0].auth.signOut({ scope: 'local' })).error).toBeNull();
    expect(await alive(tokens[0].refresh_token)).toBe(false);
    expect(await alive(tokens[1].refresh_token)).toBe(true);
  });
  it('others ends every session but this one', async () => {
    const { clients, tokens } = await threeSessions();
    expect((await clients[0].auth.signOut({ scope: 'others' })).error).toBeNull();
    expect(await alive(tokens[1].refresh_token)).toBe(false);
    expect(await alive(tokens[2].refresh_token)).toBe(false);
    expect(await alive(tokens[0].refresh_token)).toBe(true);
  });
  it('global (default) ends all of them; the access token then fails GET /user', async () => {
    const { clients, tokens } = await threeSessions();
    expect((await clients[0].auth.signOut()).error).toBeNull();
    for (const t of tokens) expect(await alive(t.refresh_token)).toBe(false);
    const res = await fetch(`${server.url}/auth/v1/user`, {
      headers: { apikey: server.ctx.anonKey, authorization: `Bearer ${tokens[1].access_token}` },
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error_code: string }).error_code).toBe('session_not_found');
  });
});

describe('password recovery', () => {
  it('resetPasswordForEmail -> link from the outbox -> GET /verify 303 -> updateUser({password})', async () => {
    const address = email();
    await client().auth.signUp({ email: address, password: PASSWORD });
    const other = client();
    await other.auth.signInWithPassword({ email: address, password: PASSWORD });

    const sb = client();
    const reset = await sb.auth.resetPasswordForEmail(address, { redirectTo: `${APP_URL}/reset` });
    expect(reset.error).toBeNull();
    const link = await outboxLink(address);
    const res = await fetch(link, { redirect: 'manual' });
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(`${APP_URL}/reset`);
    const fragment = new URLSearchParams(location.hash.slice(1));
    expect(fragment.get('type')).toBe('recovery');
    expect(fragment.get('token_type')).toBe('bearer');
    expect(Number(fragment.get('expires_in'))).toBe(3600);

    const events: AuthChangeEvent[] = [];
    sb.auth.onAuthStateChange((event) => {
      events.push(event);
    });
    const set = await sb.auth.setSession({
      access_token: fragment.get('access_token')!,
      refresh_token: fragment.get('refresh_token')!,
    });
    expect(set.error).toBeNull();
    const updated = await sb.auth.updateUser({ password: 'recovered passphrase' });
    expect(updated.error).toBeNull();
    expect(events).toEqual(expect.arrayContaining(['SIGNED_IN', 'USER_UPDATED']));
    expect(
      (await client().auth.signInWithPassword({ email: address, password: 'recovered passphrase' })).error,
    ).toBeNull();
    // The other session ended with the password change.
    expect((await other.auth.getUser()).error).not.toBeNull();

    // The link works once.
    const again = await fetch(link, { redirect: 'manual' });
    expect(again.status).toBe(303);
    expect(new URLSearchParams(new URL(again.headers.get('location')!).hash.slice(1)).get('error_code')).toBe(
      'otp_expired',
    );
  });

  it('verifyOtp({token_hash, type: recovery}) emits PASSWORD_RECOVERY', async () => {
    const address = email();
    await client().auth.signUp({ email: address, password: PASSWORD });
    await client().auth.resetPasswordForEmail(address);
    const token = new URL(await outboxLink(address)).searchParams.get('token')!;
    const sb = client();
    const events: AuthChangeEvent[] = [];
    sb.auth.onAuthStateChange((event) => {
      events.push(event);
    });
    const verified = await sb.auth.verifyOtp({ token_hash: token, type: 'recovery' });
    expect(verified.error).toBeNull();
    expect(events).toContain('PASSWORD_RECOVERY');
    expect((await sb.auth.updateUser({ password: 'another passphrase' })).error).toBeNull();
  });

  it('answers unknown addresses exactly like known ones, and sends nothing', async () => {
    const known = email();
    await client().auth.signUp({ email: known, password: PASSWORD });
    const ask = (address: string) =>
      fetch(`${server.url}/auth/v1/recover`, {
        method: 'POST',
        headers: { apikey: server.ctx.anonKey, 'content-type': 'application/json' },
        body: JSON.stringify({ email: address }),
      });
    const [a, b] = await Promise.all([ask(known), ask(`ghost.${known}`)]);
    expect(a.status).toBe(b.status);
    expect(await a.text()).toBe(await b.text());
    await outboxLink(known);
    await new Promise((r) => setTimeout(r, 200));
    const [row] = await db.sql`select count(*)::int as n from auth.mail_outbox where to_email = ${`ghost.${known}`}`;
    expect(row.n).toBe(0);
  });

  it('ignores a redirect_to outside the allowed list', async () => {
    const address = email();
    await client().auth.signUp({ email: address, password: PASSWORD });
    await client().auth.resetPasswordForEmail(address, { redirectTo: 'https://evil.test/steal' });
    const res = await fetch(await outboxLink(address), { redirect: 'manual' });
    expect(res.headers.get('location')!.startsWith(`${APP_URL}/#access_token=`)).toBe(true);
  });
});

describe('admin API', () => {
  const admin = () => client(server.ctx.serviceRoleKey).auth.admin;

  it('creates, lists with paging, reads, updates, generates links and deletes users', async () => {
    const address = email();
    const created = await admin().createUser({
      email: address,
      password: PASSWORD,
      email_confirm: true,
      user_metadata: { full_name: 'Op' },
    });
    expect(created.error).toBeNull();
    const id = created.data.user!.id;
    const list = await admin().listUsers({ page: 1, perPage: 2 });
    expect(list.error).toBeNull();
    expect(list.data.users).toHaveLength(2);
    expect((list.data as { total?: number }).total).toBeGreaterThan(2);
    expect((list.data as { nextPage?: number }).nextPage).toBe(2);
    expect((await admin().getUserById(id)).data.user?.email).toBe(address);
    const upd = await admin().updateUserById(id, { user_metadata: { full_name: 'Operator' } });
    expect(upd.data.user?.user_metadata.full_name).toBe('Operator');
    const link = await admin().generateLink({ type: 'magiclink', email: address });
    expect(link.error).toBeNull();
    expect(link.data.properties?.action_link).toContain('/auth/v1/verify?token=');
    expect(
      (await client().auth.verifyOtp({ token_hash: link.data.properties!.hashed_token, type: 'magiclink' })).error,
    ).toBeNull();
    expect((await admin().deleteUser(id)).error).toBeNull();
    expect((await admin().getUserById(id)).error).toMatchObject({ status: 404 });
  });

  it('refuses the anon key and user tokens with 403', async () => {
    const anon = client();
    const res = await anon.auth.admin.listUsers();
    expect(res.error).toMatchObject({ status: 403, code: 'not_admin' });

    const address = email();
    const { data } = await client().auth.signUp({ email: address, password: PASSWORD });
    const headers = {
      apikey: server.ctx.anonKey,
      authorization: `Bearer ${data.session!.access_token}`,
      'content-type': 'application/json',
    };
    const list = await fetch(`${server.url}/auth/v1/admin/users`, { headers });
    expect(list.status).toBe(403);
    expect(((await list.json()) as { error_code: string }).error_code).toBe('not_admin');
    const create = await fetch(`${server.url}/auth/v1/admin/users`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ email: `made.by.${address}`, password: PASSWORD }),
    });
    expect(create.status).toBe(403);
    const [made] = await db.sql`select count(*)::int as n from auth.users where email = ${`made.by.${address}`}`;
    expect(made.n).toBe(0);
  });
});

describe('e-mail addresses GoTrue refuses', () => {
  // An address group of a mail header, a display name, blanks, an empty label, a label starting with a hyphen,
  // a line break (header injection), a quoted local part, and one over 255 characters.
  const BAD = [
    'xx:;x@x.x',
    'Ann <ann@example.com>',
    ' ann@example.com',
    'ann@exa mple.com',
    'ann@example..com',
    'ann@-example.com',
    'ann@example.com\nBcc: b@example.com',
    '"ann"@example.com',
    `${'a'.repeat(250)}@example.com`,
  ];
  const invalid = { status: 400, code: 'email_address_invalid' };

  it('are refused with 400 email_address_invalid at every entry point, and nothing is stored', async () => {
    const admin = client(server.ctx.serviceRoleKey).auth.admin;
    const existing = await admin.createUser({ email: email(), password: PASSWORD, email_confirm: true });
    const id = existing.data.user!.id;
    const signedIn = client();
    await signedIn.auth.signInWithPassword({ email: existing.data.user!.email!, password: PASSWORD });
    for (const address of BAD) {
      expect((await client().auth.signUp({ email: address, password: PASSWORD })).error, address).toMatchObject(
        invalid,
      );
      expect((await admin.createUser({ email: address, password: PASSWORD })).error, address).toMatchObject(invalid);
      expect((await admin.updateUserById(id, { email: address })).error, address).toMatchObject(invalid);
      for (const type of ['invite', 'magiclink', 'recovery'] as const)
        expect((await admin.generateLink({ type, email: address })).error, `${type} ${address}`).toMatchObject(invalid);
      expect((await client().auth.resetPasswordForEmail(address)).error, address).toMatchObject(invalid);
      expect((await signedIn.auth.updateUser({ email: address })).error, address).toMatchObject(invalid);
    }
    const [stored] =
      await db.sql`select count(*)::int as n from auth.users where email = any(${BAD.map((b) => b.toLowerCase())})`;
    expect(stored.n).toBe(0);
    expect((await admin.getUserById(id)).data.user?.email).toBe(existing.data.user!.email);
  });

  it('accepts what GoTrue accepts: plus tags, dots, upper case (stored lower case), a host without a dot', async () => {
    for (const address of [`Ann.Lee+lot7.${n}@Example.COM`, `o'brien.${n}@sub.example.co.uk`, `ops.${n}@localhost`]) {
      const { data, error } = await client().auth.signUp({ email: address, password: PASSWORD });
      expect(error, address).toBeNull();
      expect(data.user?.email).toBe(address.toLowerCase());
    }
  });
});

describe('settings, health, jwks', () => {
  it('answers GET /settings, /health and /.well-known/jwks.json', async () => {
    const settings = await (
      await fetch(`${server.url}/auth/v1/settings`, { headers: { apikey: server.ctx.anonKey } })
    ).json();
    expect(settings).toMatchObject({ external: { email: true }, disable_signup: false, mailer_autoconfirm: true });
    const health = await fetch(`${server.url}/auth/v1/health`, { headers: { apikey: server.ctx.anonKey } });
    expect(health.status).toBe(200);
    const jwks = await (await fetch(`${server.url}/auth/v1/.well-known/jwks.json`)).json();
    expect(jwks).toEqual({ keys: [] });
  });
});
