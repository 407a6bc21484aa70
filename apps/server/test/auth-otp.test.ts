// End to end: e-mail one-time codes and magic links through supabase-js (signInWithOtp, verifyOtp, resend):
// one e-mail carries a link and a six-digit code of the same token, either spends both; no enumeration.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import type { TestDatabase } from '@auction-ops/database/testing';
import type { RunningServer } from '@auction-ops/server';
import { startTestServer, type TestServer, TEST_CLIENT_OPTIONS } from './support/test-server.js';
import { mailTo as mailOutbox } from './support/mail-outbox.js';
import { awaitWindowRoom } from './support/rate-windows.js';

const GUESSES = 5;
let t: TestServer;
let db: TestDatabase;
let server: RunningServer;

beforeAll(async () => {
  t = await startTestServer({
    WORKERS_ENABLED: 'false',
    APP_URL: 'http://app.example.test',
    AUTH_RATE_LIMIT_SIGN_UP: '1000',
    AUTH_RATE_LIMIT_SIGN_IN: String(GUESSES),
    AUTH_RATE_LIMIT_RECOVER: '3',
  });
  ({ db, server } = t);
});
afterAll(async () => {
  await t?.stop();
});

let n = 0;
const email = () => `otp${++n}.${Date.now()}@example.com`;
const client = (): SupabaseClient => createClient(server.url, server.ctx.anonKey, TEST_CLIENT_OPTIONS);

const mailTo = (to: string, count = 1) => mailOutbox(db, server.url, to, count);

async function mailCount(to: string): Promise<number> {
  // The lookup and the mail run after the answer: give them the time a sent mail takes here.
  await new Promise((r) => setTimeout(r, 500));
  const [row] = await db.sql<
    Array<{ n: number }>
  >`select count(*)::int as n from auth.mail_outbox where to_email = ${to}`;
  return row!.n;
}

describe('signInWithOtp and verifyOtp', () => {
  it('creates the user, mails a code and a link; the code signs in once and kills the link', async () => {
    const address = email();
    const sb = client();
    expect((await sb.auth.signInWithOtp({ email: address })).error).toBeNull();
    const { code, link } = await mailTo(address);
    const { data, error } = await sb.auth.verifyOtp({ email: address, token: code, type: 'email' });
    expect(error).toBeNull();
    expect(data.user!.email).toBe(address);
    expect(data.user!.email_confirmed_at).toBeTruthy();
    const again = await client().auth.verifyOtp({ email: address, token: code, type: 'email' });
    expect(again.error).toMatchObject({ status: 403, code: 'otp_expired' });
    const followed = await fetch(link, { redirect: 'manual' });
    expect(new URL(followed.headers.get('location')!).hash).toContain('error_code=otp_expired');
  });

  it('an existing user gets a magic link; following it spends the code of the same mail', async () => {
    const address = email();
    expect((await client().auth.signUp({ email: address, password: 'correct horse battery' })).error).toBeNull();
    expect((await client().auth.signInWithOtp({ email: address })).error).toBeNull();
    const { code, link } = await mailTo(address);
    const followed = await fetch(link, { redirect: 'manual' });
    expect(followed.status).toBe(303);
    const fragment = new URLSearchParams(new URL(followed.headers.get('location')!).hash.slice(1));
    expect(fragment.get('access_token')).toBeTruthy();
    expect(fragment.get('type')).toBe('magiclink');
    const code2 = await client().auth.verifyOtp({ email: address, token: code, type: 'magiclink' });
    expect(code2.error).toMatchObject({ code: 'otp_expired' });
  });

  it('refuses an expired code, and a code given with another address', async () => {
    const address = email();
    await client().auth.signInWithOtp({ email: address });
    const { code } = await mailTo(address);
    const other = await client().auth.verifyOtp({ email: email(), token: code, type: 'email' });
    expect(other.error).toMatchObject({ code: 'otp_expired' });
    await db.sql`update auth.one_time_tokens set expires_at = now() - interval '1 second'
      where user_id = (select id from auth.users where email = ${address})`;
    const expired = await client().auth.verifyOtp({ email: address, token: code, type: 'email' });
    expect(expired.error).toMatchObject({ status: 403, code: 'otp_expired' });
  });

  it('counts code guesses per address: 429 past the limit, even for the right code', async () => {
    // Counted in hour windows of the wall clock (AUTH_RATE_LIMIT_WINDOW_SECONDS): not across a boundary.
    await awaitWindowRoom(3_600_000, 10_000);
    const address = email();
    await client().auth.signInWithOtp({ email: address });
    const { code } = await mailTo(address);
    const wrong = code === '000000' ? '111111' : '000000';
    const codes: Array<string | undefined> = [];
    for (let i = 0; i < GUESSES; i++) {
      codes.push((await client().auth.verifyOtp({ email: address, token: wrong, type: 'email' })).error?.code);
    }
    expect(codes).toEqual(Array(GUESSES).fill('otp_expired'));
    const right = await client().auth.verifyOtp({ email: address, token: code, type: 'email' });
    expect(right.error).toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
  });

  it('shouldCreateUser: false answers as for a known address, creates nobody and sends nothing', async () => {
    const unknown = email();
    const res = await client().auth.signInWithOtp({ email: unknown, options: { shouldCreateUser: false } });
    expect(res.error).toBeNull();
    expect(await mailCount(unknown)).toBe(0);
    const [row] = await db.sql`select count(*)::int as n from auth.users where email = ${unknown}`;
    expect(row!.n).toBe(0);
  });

  it("AUTH_OTP_REVEAL_UNKNOWN_ADDRESSES: GoTrue's 422 otp_disabled for an unknown address without sign-up", async () => {
    const revealing = await startTestServer({ WORKERS_ENABLED: 'false', AUTH_OTP_REVEAL_UNKNOWN_ADDRESSES: 'true' });
    try {
      const sb = () => createClient(revealing.server.url, revealing.server.ctx.anonKey, TEST_CLIENT_OPTIONS);
      const unknown = email();
      const refused = await sb().auth.signInWithOtp({ email: unknown, options: { shouldCreateUser: false } });
      expect(refused.error).toMatchObject({
        status: 422,
        code: 'otp_disabled',
        message: 'Signups not allowed for otp',
      });
      const [row] = await revealing.db.sql`select count(*)::int as n from auth.users where email = ${unknown}`;
      expect(row!.n).toBe(0);
      // A known address and a sign-up are answered as before.
      expect((await sb().auth.signInWithOtp({ email: unknown })).error).toBeNull();
      // The sign-up creates the user after answering (so the answer reveals nothing): wait for it.
      await vi.waitFor(async () => {
        const [created] = await revealing.db.sql`select count(*)::int as n from auth.users where email = ${unknown}`;
        expect(created!.n).toBe(1);
      });
      const known = await sb().auth.signInWithOtp({ email: unknown, options: { shouldCreateUser: false } });
      expect(known.error).toBeNull();
    } finally {
      await revealing.stop();
    }
  });

  it('limits mails per address like recovery', async () => {
    const address = email();
    const errors: Array<string | undefined> = [];
    for (let i = 0; i < 4; i++) errors.push((await client().auth.signInWithOtp({ email: address })).error?.code);
    expect(errors).toEqual([undefined, undefined, undefined, 'rate_limit_exceeded']);
  });
});

describe('codes of the other e-mails', () => {
  it('recovery: resetPasswordForEmail mails a code that verifyOtp({type: recovery}) accepts', async () => {
    const address = email();
    await client().auth.signUp({ email: address, password: 'correct horse battery' });
    expect((await client().auth.resetPasswordForEmail(address)).error).toBeNull();
    const { code } = await mailTo(address);
    const { data, error } = await client().auth.verifyOtp({ email: address, token: code, type: 'recovery' });
    expect(error).toBeNull();
    expect(data.session).toBeTruthy();
  });

  it('invite: the email_otp of generate_link signs the invited user in', async () => {
    const admin = createClient(server.url, server.ctx.serviceRoleKey, TEST_CLIENT_OPTIONS);
    const address = email();
    const { data, error } = await admin.auth.admin.generateLink({ type: 'invite', email: address });
    expect(error).toBeNull();
    expect(data.properties!.email_otp).toMatch(/^\d{6}$/);
    const verified = await client().auth.verifyOtp({
      email: address,
      token: data.properties!.email_otp,
      type: 'invite',
    });
    expect(verified.error).toBeNull();
    expect(verified.data.user!.email).toBe(address);
  });

  it('resend({type: signup}) replaces the code: the old one is dead, the new one works', async () => {
    const address = email();
    await client().auth.signInWithOtp({ email: address });
    const first = await mailTo(address);
    expect((await client().auth.resend({ type: 'signup', email: address })).error).toBeNull();
    const second = await mailTo(address, 2);
    expect(second.code === first.code && second.link === first.link).toBe(false);
    const old = await client().auth.verifyOtp({ email: address, token: first.code, type: 'signup' });
    if (first.code !== second.code) expect(old.error).toMatchObject({ code: 'otp_expired' });
    const fresh = await client().auth.verifyOtp({ email: address, token: second.code, type: 'signup' });
    expect(fresh.error).toBeNull();
  });
});

describe('email_change code (confirmation on)', () => {
  let confirming: TestServer;
  beforeAll(async () => {
    confirming = await startTestServer({ WORKERS_ENABLED: 'false', AUTH_AUTOCONFIRM: 'false' });
  });
  afterAll(async () => {
    await confirming?.stop();
  });

  it('updateUser({email}) mails the new address a code; verifyOtp({type: email_change}) applies it once', async () => {
    const sb = createClient(confirming.server.url, confirming.server.ctx.anonKey, TEST_CLIENT_OPTIONS);
    const admin = createClient(confirming.server.url, confirming.server.ctx.serviceRoleKey, TEST_CLIENT_OPTIONS);
    const address = email();
    await admin.auth.admin.createUser({ email: address, password: 'correct horse battery', email_confirm: true });
    expect((await sb.auth.signInWithPassword({ email: address, password: 'correct horse battery' })).error).toBeNull();
    const next = email();
    expect((await sb.auth.updateUser({ email: next })).error).toBeNull();
    let code = '';
    for (let i = 0; i < 100 && !code; i++) {
      const [row] = await confirming.db.sql<Array<{ text_body: string }>>`
        select text_body from auth.mail_outbox where to_email = ${next}`;
      code = row?.text_body.match(/code: (\d{6})/)?.[1] ?? '';
      if (!code) await new Promise((r) => setTimeout(r, 50));
    }
    const verified = await sb.auth.verifyOtp({ email: next, token: code, type: 'email_change' });
    expect(verified.error).toBeNull();
    expect(verified.data.user!.email).toBe(next);
    const again = await sb.auth.verifyOtp({ email: next, token: code, type: 'email_change' });
    expect(again.error).toMatchObject({ code: 'otp_expired' });
  });
});
