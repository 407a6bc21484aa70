// End to end through supabase-js's admin API, as GoTrue answers it: inviteUserByEmail (verifyOtp type invite),
// generate_link's e-mail-change types, users newest first with page/per_page validated, factors listed and deleted,
// and a soft delete that leaves the account no credential.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { TOTP } from 'otpauth';
import { startTestServer, type TestServer, TEST_CLIENT_OPTIONS, TEST_PASSWORD } from './support/test-server.js';
import { mailTo } from './support/mail-outbox.js';

let t: TestServer;
let admin: SupabaseClient['auth']['admin'];

beforeAll(async () => {
  t = await startTestServer({ WORKERS_ENABLED: 'false', AUTH_RATE_LIMIT_SIGN_UP: '1000' });
  admin = createClient(t.url, t.serviceRoleKey, TEST_CLIENT_OPTIONS).auth.admin;
});
afterAll(async () => {
  await t?.stop();
});

let n = 0;
const address = () => `parity${++n}.${Date.now()}@example.com`;
const anon = () => createClient(t.url, t.anonKey, TEST_CLIENT_OPTIONS);

describe('inviteUserByEmail', () => {
  it('creates the user with invited_at and mails a code that verifyOtp type invite turns into a session', async () => {
    const email = address();
    const { data, error } = await admin.inviteUserByEmail(email, { data: { team: 'yard' } });
    expect(error).toBeNull();
    expect(data.user?.invited_at).toEqual(expect.any(String));
    expect(data.user?.user_metadata).toEqual({ team: 'yard' });
    expect(data.user?.email_confirmed_at).toBeNull();
    const { code } = await mailTo(t.db, t.url, email);
    const verified = await anon().auth.verifyOtp({ email, token: code, type: 'invite' });
    expect(verified.error).toBeNull();
    expect(verified.data.user?.email_confirmed_at).toEqual(expect.any(String));
  });

  it('refuses an invalid address and an already confirmed user in GoTrue words', async () => {
    const bad = await admin.inviteUserByEmail('not an address');
    expect(bad.error?.message).toBe('Unable to validate email address: invalid format');
    expect(bad.data.user).toBeNull();
    const user = await t.signUp(address());
    const again = await admin.inviteUserByEmail(user.email);
    expect(again.error?.status).toBe(422);
    expect(again.error?.code).toBe('email_exists');
  });

  it('is for the service role only', async () => {
    const res = await fetch(`${t.url}/auth/v1/invite`, {
      method: 'POST',
      headers: { apikey: t.anonKey, 'content-type': 'application/json' },
      body: JSON.stringify({ email: address() }),
    });
    expect(res.status).toBe(403);
  });
});

describe('generateLink for e-mail changes', () => {
  for (const type of ['email_change_current', 'email_change_new'] as const) {
    it(`${type}: new_email on the user, a link and code that change the address`, async () => {
      const user = await t.signUp(address());
      const { client } = user;
      const newEmail = address();
      const { data, error } = await admin.generateLink({ type, email: user.email, newEmail });
      expect(error).toBeNull();
      expect(data.user?.new_email).toBe(newEmail);
      expect(data.properties).toMatchObject({ verification_type: type, email_otp: expect.stringMatching(/^\d{6}$/) });
      expect(data.properties?.action_link).toMatch(/\?token=.+&type=email_change&redirect_to=/);
      const verified = await client.auth.verifyOtp({
        email: newEmail,
        token: data.properties!.email_otp,
        type: 'email_change',
      });
      expect(verified.error).toBeNull();
      expect(verified.data.user?.email).toBe(newEmail);
    });
  }

  it('refuses a taken new address, an unknown user and an unknown type', async () => {
    const user = await t.signUp(address());
    const other = await t.signUp(address());
    const taken = await admin.generateLink({ type: 'email_change_new', email: user.email, newEmail: other.email });
    expect(taken.error?.code).toBe('email_exists');
    const unknown = await admin.generateLink({ type: 'email_change_new', email: address(), newEmail: address() });
    expect(unknown.error?.status).toBe(404);
    const res = await fetch(`${t.url}/auth/v1/admin/generate_link`, {
      method: 'POST',
      headers: { apikey: t.serviceRoleKey, authorization: `Bearer ${t.serviceRoleKey}` },
      body: JSON.stringify({ type: 'phone_change', email: user.email }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { msg: string }).msg).toBe('Invalid email action link type requested: phone_change');
  });
});

describe('listUsers', () => {
  it('lists the newest first', async () => {
    const older = await t.signUp(address());
    const newer = await t.signUp(address());
    const { data, error } = await admin.listUsers({ page: 1, perPage: 2 });
    expect(error).toBeNull();
    expect(data.users.map((u) => u.id)).toEqual([newer.id, older.id]);
  });

  it('refuses a page or per_page that is not an unsigned integer, with GoTrue error', async () => {
    const { data, error } = await admin.listUsers({ page: -1, perPage: 10 });
    expect(error?.status).toBe(400);
    expect(error?.message).toBe('Bad Pagination Parameters: strconv.ParseUint: parsing "-1": invalid syntax');
    expect(data.users).toEqual([]);
    const res = await fetch(`${t.url}/auth/v1/admin/users?per_page=ten`, {
      headers: { apikey: t.serviceRoleKey, authorization: `Bearer ${t.serviceRoleKey}` },
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error_code: string }).error_code).toBe('validation_failed');
  });
});

describe('mfa admin', () => {
  it('lists a user factors and deletes one; the user sessions drop to aal1', async () => {
    const user = await t.signUp(address());
    const { client } = user;
    const enrolled = await client.auth.mfa.enroll({ factorType: 'totp' });
    expect(enrolled.error).toBeNull();
    const totp = new TOTP({ secret: enrolled.data!.totp.secret });
    const verified = await client.auth.mfa.challengeAndVerify({ factorId: enrolled.data!.id, code: totp.generate() });
    expect(verified.error).toBeNull();

    const listed = await admin.mfa.listFactors({ userId: user.id });
    expect(listed.error).toBeNull();
    expect(listed.data?.factors.map((f) => [f.id, f.status])).toEqual([[enrolled.data!.id, 'verified']]);

    const deleted = await admin.mfa.deleteFactor({ userId: user.id, id: enrolled.data!.id });
    expect(deleted.error).toBeNull();
    expect((deleted.data as unknown as { data: { id: string } }).data.id).toBe(enrolled.data!.id);
    expect((await admin.mfa.listFactors({ userId: user.id })).data?.factors).toEqual([]);
    const [session] = await t.db.sql<Array<{ aal: string }>>`select aal from auth.sessions where user_id = ${user.id}`;
    expect(session?.aal).toBe('aal1');
  });

  it('answers 404 for an unknown user or factor', async () => {
    const missing = '00000000-0000-4000-8000-000000000000';
    const list = await admin.mfa.listFactors({ userId: missing });
    expect(list.error?.status).toBe(404);
    expect(list.data).toBeNull();
    const user = await t.signUp(address());
    const del = await admin.mfa.deleteFactor({ userId: user.id, id: missing });
    expect(del.error?.status).toBe(404);
    expect(del.error?.code).toBe('mfa_factor_not_found');
  });
});

describe('deleteUser, softly', () => {
  const credentials = (id: string) => t.db.sql<Array<Record<string, number>>>`select
      (select count(*)::int from auth.sessions where user_id = ${id}) sessions,
      (select count(*)::int from auth.identities where user_id = ${id}) identities,
      (select count(*)::int from auth.one_time_tokens where user_id = ${id}) one_time_tokens,
      (select count(*)::int from auth.mfa_factors where user_id = ${id}) factors,
      (select count(*)::int from auth.users where id = ${id} and encrypted_password is not null) passwords`;

  it('keeps the row but no credential: sessions, identities, links, factors and the password are gone', async () => {
    const user = await t.signUp(address());
    const enrolled = await user.client.auth.mfa.enroll({ factorType: 'totp' });
    expect(enrolled.error).toBeNull();
    expect((await anon().auth.resetPasswordForEmail(user.email)).error).toBeNull();
    // The recovery link is made after the answer (it reveals nothing): wait for it, so the check below means something.
    await expect
      .poll(async () => (await credentials(user.id))[0]!.one_time_tokens, { timeout: 10_000 })
      .toBeGreaterThan(0);
    const before = (await credentials(user.id))[0]!;
    expect(before).toMatchObject({ sessions: 1, identities: 1, factors: 1, passwords: 1 });

    const { error } = await admin.deleteUser(user.id, true);
    expect(error).toBeNull();
    expect((await credentials(user.id))[0]).toEqual({
      sessions: 0,
      identities: 0,
      one_time_tokens: 0,
      factors: 0,
      passwords: 0,
    });
    const [row] = await t.db.sql`select deleted_at from auth.users where id = ${user.id}`;
    expect(row?.deleted_at).toBeInstanceOf(Date);
    const signIn = await anon().auth.signInWithPassword({ email: user.email, password: TEST_PASSWORD });
    expect(signIn.error?.status).toBe(400);
    // Deleted already: not found, as for an unknown id.
    expect((await admin.deleteUser(user.id, true)).error?.status).toBe(404);
  });

  it('keeps no address or profile: e-mail and phone become digests, and the address can sign up again', async () => {
    const user = await t.signUp(address(), 'Pat Yard');
    const phone = '15550104477';
    const avatar = { avatar_url: 'https://a.example/p.png' };
    await t.db
      .sql`update auth.users set phone = ${phone}, raw_user_meta_data = raw_user_meta_data || ${t.db.sql.json(avatar)}
      where id = ${user.id}`;
    const [profile] = await t.db.sql`select full_name, avatar_url from public.users where id = ${user.id}`;
    expect(profile).toEqual({ full_name: 'Pat Yard', avatar_url: 'https://a.example/p.png' });

    expect((await admin.deleteUser(user.id, true)).error).toBeNull();
    const digest = (value: string) =>
      createHash('sha256')
        .update(user.id + value)
        .digest('base64url');
    const [row] = await t.db.sql`select email, phone, raw_user_meta_data, raw_app_meta_data from auth.users
      where id = ${user.id}`;
    expect(row).toEqual({
      email: digest(user.email),
      phone: digest(phone).slice(0, 15),
      raw_user_meta_data: {},
      raw_app_meta_data: {},
    });
    const [after] = await t.db.sql`select email, full_name, avatar_url from public.users where id = ${user.id}`;
    expect(after).toEqual({ email: digest(user.email), full_name: null, avatar_url: null });
    // The address belongs to no account now: it signs up afresh.
    const again = await t.signUp(user.email);
    expect(again.id).not.toBe(user.id);
  });

  it('is for the service role only: a user cannot delete another, and nothing changes', async () => {
    const [victim, other] = [await t.signUp(address()), await t.signUp(address())];
    const { data } = await other.client.auth.getSession();
    const res = await fetch(`${t.url}/auth/v1/admin/users/${victim.id}`, {
      method: 'DELETE',
      headers: {
        apikey: t.anonKey,
        authorization: `Bearer ${data.session!.access_token}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ should_soft_delete: true }),
    });
    expect(res.status).toBe(403);
    expect((await credentials(victim.id))[0]).toMatchObject({ sessions: 1, identities: 1, passwords: 1 });
  });
});
