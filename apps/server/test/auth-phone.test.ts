// End to end: phone sign-up, sign-in with a password or an SMS code, verification (sms, phone_change), resend, the
// change of number, admin phone users and phone factors, through supabase-js against a server whose Twilio
// provider is a fake on loopback; then a server with GoTrue's SMS auto-confirm and test OTPs, and one with the
// phone provider off.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { startTestServer, type TestServer, TEST_CLIENT_OPTIONS, TEST_PASSWORD } from './support/test-server.js';
import { type FakeTwilio, startFakeTwilio } from './support/fake-twilio.js';

const SID = 'AC0123456789abcdef0123456789abcdef';
const TOKEN = 'twilio-auth-token';
const SENDER = 'MG0123456789abcdef0123456789abcdef';
const SEND_LIMIT = 3;

let n = 0;
/** A fresh number: E.164 digits without "+", as GoTrue stores and answers them. */
const newPhone = () => `1555${String(Date.now() % 1e4).padStart(4, '0')}${String(++n).padStart(3, '0')}`;
const clientOf = (t: TestServer): SupabaseClient => createClient(t.url, t.anonKey, TEST_CLIENT_OPTIONS);

describe('with a Twilio provider and confirmations on', () => {
  let t: TestServer;
  let twilio: FakeTwilio;
  const client = () => clientOf(t);
  /** Lets the next code to the user's number go out now (the resend interval is a minute). */
  const pastInterval = (phone: string) =>
    t.db.sql`update auth.phone_codes set sent_at = now() - interval '61 seconds' where phone = ${phone}`;

  beforeAll(async () => {
    twilio = await startFakeTwilio();
    t = await startTestServer({
      WORKERS_ENABLED: 'false',
      AUTH_EXTERNAL_PHONE_ENABLED: 'true',
      AUTH_SMS_PROVIDER: 'twilio',
      AUTH_SMS_TWILIO_ACCOUNT_SID: SID,
      AUTH_SMS_TWILIO_AUTH_TOKEN: TOKEN,
      AUTH_SMS_TWILIO_MESSAGE_SERVICE_SID: SENDER,
      AUTH_SMS_TWILIO_API_URL: twilio.url,
      AUTH_RATE_LIMIT_SMS_SENT: String(SEND_LIMIT),
      AUTH_RATE_LIMIT_SIGN_UP: '1000',
      AUTH_MFA_PHONE_ENABLED: 'true',
    });
  });
  afterAll(async () => {
    await t?.stop();
    await twilio?.close();
  });

  it("answers a sign-up for a taken number with GoTrue's look-alike user: no second account, no SMS", async () => {
    const phone = newPhone();
    const first = await client().auth.signUp({ phone: `+${phone}`, password: TEST_PASSWORD });
    expect(first.error).toBeNull();
    const verified = await client().auth.verifyOtp({ phone, token: twilio.codeFor(phone)!, type: 'sms' });
    expect(verified.error).toBeNull();
    await pastInterval(phone);
    const calls = twilio.calls.length;
    const again = await client().auth.signUp({ phone: `+${phone}`, password: 'another-password-1' });
    expect(again.error).toBeNull();
    expect(again.data.session).toBeNull();
    // Shaped like the first answer, but a user that exists nowhere: a new id and no identities.
    expect(again.data.user).toMatchObject({ phone, app_metadata: { provider: 'phone' }, identities: [] });
    expect(Object.keys(again.data.user!)).toEqual(expect.arrayContaining(['is_sso_user', 'confirmation_sent_at']));
    expect(again.data.user!.id).not.toBe(first.data.user!.id);
    expect(twilio.calls.length).toBe(calls);
    const [row] = await t.db.sql`select count(*)::int as n from auth.users where phone = ${phone}`;
    expect(row!.n).toBe(1);
  });

  it('signs up by number: a code goes out through Twilio, verifying it confirms the number and signs in', async () => {
    const phone = newPhone();
    const sb = client();
    const signUp = await sb.auth.signUp({ phone: `+${phone}`, password: TEST_PASSWORD, options: { data: { a: 1 } } });
    expect(signUp.error).toBeNull();
    expect(signUp.data.session).toBeNull();
    expect(signUp.data.user).toMatchObject({ phone, user_metadata: { a: 1 }, app_metadata: { provider: 'phone' } });
    const call = twilio.calls.at(-1)!;
    expect(call.accountSid).toBe(SID);
    expect(call.authorization).toBe(`Basic ${Buffer.from(`${SID}:${TOKEN}`).toString('base64')}`);
    expect(call.form).toMatchObject({ To: `+${phone}`, From: SENDER, Channel: 'sms' });
    const code = twilio.codeFor(phone)!;
    expect(call.form.Body).toBe(`Your code is ${code}`);

    // Only a hash is kept, and the number is not confirmed until the code comes back.
    const [stored] = await t.db.sql<Array<{ code_hash: string }>>`
      select code_hash from auth.phone_codes where phone = ${phone}`;
    expect(stored!.code_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored!.code_hash).not.toContain(code);
    const early = await client().auth.signInWithPassword({ phone, password: TEST_PASSWORD });
    expect(early.error).toMatchObject({ status: 400, code: 'phone_not_confirmed', message: 'Phone not confirmed' });

    const { data, error } = await sb.auth.verifyOtp({ phone, token: code, type: 'sms' });
    expect(error).toBeNull();
    expect(data.session!.access_token).toBeTruthy();
    expect(data.user!.phone).toBe(phone);
    expect(data.user!.phone_confirmed_at).toBeTruthy();
    expect(data.user!.identities).toEqual([
      expect.objectContaining({ provider: 'phone', identity_data: expect.objectContaining({ phone_verified: true }) }),
    ]);
    const signedIn = await client().auth.signInWithPassword({ phone: `+${phone}`, password: TEST_PASSWORD });
    expect(signedIn.error).toBeNull();
    expect(signedIn.data.user!.app_metadata).toMatchObject({ provider: 'phone', providers: ['phone'] });
    const wrongPassword = await client().auth.signInWithPassword({ phone, password: 'not-the-password' });
    expect(wrongPassword.error).toMatchObject({ status: 400, message: 'Invalid login credentials' });
  });

  it('signInWithOtp creates the user once; a wrong, used or expired code is refused in GoTrue words', async () => {
    const phone = newPhone();
    const sb = client();
    const sent = await sb.auth.signInWithOtp({ phone, options: { data: { via: 'otp' } } });
    expect(sent.error).toBeNull();
    expect(sent.data).toMatchObject({ user: null, session: null });
    const code = twilio.codeFor(phone)!;
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    const refused = await sb.auth.verifyOtp({ phone, token: wrong, type: 'sms' });
    expect(refused.error).toMatchObject({
      status: 403,
      code: 'otp_expired',
      message: 'Token has expired or is invalid',
    });
    const { data, error } = await sb.auth.verifyOtp({ phone, token: code, type: 'sms' });
    expect(error).toBeNull();
    expect(data.user).toMatchObject({ phone, user_metadata: { via: 'otp' } });
    expect(data.session!.user.phone_confirmed_at).toBeTruthy();
    const used = await client().auth.verifyOtp({ phone, token: code, type: 'sms' });
    expect(used.error).toMatchObject({ code: 'otp_expired' });

    // A known number: the provider's message id comes back; an expired code is refused.
    await pastInterval(phone);
    const again = await client().auth.signInWithOtp({ phone });
    expect(again.error).toBeNull();
    expect(again.data.messageId).toMatch(/^SM/);
    await t.db.sql`update auth.phone_codes set expires_at = now() - interval '1 second' where phone = ${phone}`;
    const expired = await client().auth.verifyOtp({ phone, token: twilio.codeFor(phone)!, type: 'sms' });
    expect(expired.error).toMatchObject({ status: 403, code: 'otp_expired' });
  });

  it('signInWithOtp without creating users refuses an unknown number, as GoTrue does', async () => {
    const { error } = await client().auth.signInWithOtp({ phone: newPhone(), options: { shouldCreateUser: false } });
    expect(error).toMatchObject({ status: 422, code: 'otp_disabled', message: 'Signups not allowed for otp' });
  });

  it('refuses a resend within the interval, then sends a fresh code that replaces the previous one', async () => {
    const phone = newPhone();
    expect((await client().auth.signUp({ phone, password: TEST_PASSWORD })).error).toBeNull();
    const first = twilio.codeFor(phone)!;
    const tooSoon = await client().auth.resend({ type: 'sms', phone });
    expect(tooSoon.error).toMatchObject({ status: 429, code: 'over_sms_send_rate_limit' });
    expect(tooSoon.error!.message).toMatch(/^For security purposes, you can only request this after \d+ seconds\.$/);
    await pastInterval(phone);
    const calls = twilio.calls.length;
    const resent = await client().auth.resend({ type: 'sms', phone });
    expect(resent.error).toBeNull();
    expect(resent.data.messageId).toMatch(/^SM/);
    expect(twilio.calls.length).toBe(calls + 1);
    const second = twilio.codeFor(phone)!;
    if (second !== first) {
      expect((await client().auth.verifyOtp({ phone, token: first, type: 'sms' })).error).toMatchObject({
        code: 'otp_expired',
      });
    }
    expect((await client().auth.verifyOtp({ phone, token: second, type: 'sms' })).error).toBeNull();
    // A confirmed number, or an unknown one, is sent nothing and answered alike.
    const before = twilio.calls.length;
    expect((await client().auth.resend({ type: 'sms', phone })).error).toBeNull();
    expect((await client().auth.resend({ type: 'sms', phone: newPhone() })).error).toBeNull();
    expect(twilio.calls.length).toBe(before);
  });

  it('counts codes per number: past AUTH_RATE_LIMIT_SMS_SENT the answer is over_sms_send_rate_limit', async () => {
    const phone = newPhone();
    for (let i = 0; i < SEND_LIMIT; i++) {
      await pastInterval(phone);
      expect((await client().auth.signInWithOtp({ phone })).error).toBeNull();
    }
    await pastInterval(phone);
    const { error } = await client().auth.signInWithOtp({ phone });
    expect(error).toMatchObject({ status: 429, code: 'over_sms_send_rate_limit', message: 'SMS rate limit exceeded' });
  });

  it('refuses numbers that are not E.164 and channels other than sms and whatsapp', async () => {
    const invalid = { status: 400, code: 'validation_failed', message: 'Invalid phone number format (E.164 required)' };
    expect((await client().auth.signUp({ phone: '12ab45', password: TEST_PASSWORD })).error).toMatchObject(invalid);
    expect((await client().auth.signInWithOtp({ phone: 'invalid-phone' })).error).toMatchObject(invalid);
    expect((await client().auth.signInWithOtp({ phone: '+0123456' })).error).toMatchObject(invalid);
    const verify = await client().auth.verifyOtp({ phone: `${newPhone()}-invalid`, token: '123456', type: 'sms' });
    expect(verify.error).toMatchObject(invalid);
    const channel = await fetch(`${t.url}/auth/v1/otp`, {
      method: 'POST',
      headers: { apikey: t.anonKey, 'content-type': 'application/json' },
      body: JSON.stringify({ phone: newPhone(), channel: 'pigeon' }),
    });
    expect(channel.status).toBe(400);
    expect(await channel.json()).toMatchObject({
      error_code: 'validation_failed',
      msg: expect.stringContaining('channel'),
    });
  });

  it('sends WhatsApp messages through Twilio with the whatsapp: prefix', async () => {
    const phone = newPhone();
    const { error } = await client().auth.signInWithOtp({ phone, options: { channel: 'whatsapp' } });
    expect(error).toBeNull();
    expect(twilio.calls.at(-1)!.form).toMatchObject({ To: `whatsapp:+${phone}`, Channel: 'whatsapp' });
  });

  it('answers sms_send_failed when Twilio refuses or the message fails, and leaves no user behind', async () => {
    const phone = newPhone();
    twilio.mode = 'error';
    try {
      const refused = await client().auth.signInWithOtp({ phone });
      expect(refused.error).toMatchObject({ status: 422, code: 'sms_send_failed' });
      expect(refused.error!.message).toBe(
        "Error sending confirmation OTP to provider: The 'To' number is not a valid phone number. " +
          'More information: https://www.twilio.com/docs/errors/21211',
      );
      twilio.mode = 'failed';
      const failed = await client().auth.signUp({ phone, password: TEST_PASSWORD });
      expect(failed.error).toMatchObject({ status: 422, code: 'sms_send_failed' });
      expect(failed.error!.message).toContain('Unreachable destination handset');
    } finally {
      twilio.mode = 'ok';
    }
    const [row] = await t.db.sql<
      Array<{ n: number }>
    >`select count(*)::int as n from auth.users where phone = ${phone}`;
    expect(row!.n).toBe(0);
    expect((await client().auth.signInWithOtp({ phone })).error).toBeNull();
  });

  it('changes a signed-in user’s number after a code to the new number (phone_change), refusing a taken one', async () => {
    const user = await t.signUp(`phone-change.${Date.now()}@example.com`);
    const newNumber = newPhone();
    const updated = await user.client.auth.updateUser({ phone: newNumber });
    expect(updated.error).toBeNull();
    expect(updated.data.user).toMatchObject({ phone: '', new_phone: newNumber });
    const code = twilio.codeFor(newNumber)!;
    expect((await client().auth.verifyOtp({ phone: newNumber, token: code, type: 'sms' })).error).toMatchObject({
      code: 'otp_expired',
    });
    // Resending by the address: the pending number gets a fresh code.
    await pastInterval(newNumber);
    // (auth-js's types pair phone_change with a phone; its resend() sends an address as given, and GoTrue takes it)
    const byAddress = { type: 'phone_change', email: user.email } as unknown as { type: 'phone_change'; phone: string };
    expect((await client().auth.resend(byAddress)).error).toBeNull();
    const fresh = twilio.codeFor(newNumber)!;
    const { data, error } = await client().auth.verifyOtp({ phone: newNumber, token: fresh, type: 'phone_change' });
    expect(error).toBeNull();
    expect(data.user).toMatchObject({ id: user.id, email: user.email, phone: newNumber });
    expect(data.user!.identities!.map((i) => i.provider).sort()).toEqual(['email', 'phone']);
    expect(data.user!.app_metadata.providers).toEqual(expect.arrayContaining(['email', 'phone']));

    const other = await t.signUp(`phone-taken.${Date.now()}@example.com`);
    const taken = await other.client.auth.updateUser({ phone: `+${newNumber}` });
    expect(taken.error).toMatchObject({ status: 422, code: 'phone_exists' });
    const noSession = await fetch(`${t.url}/auth/v1/user`, {
      method: 'PUT',
      headers: { apikey: t.anonKey, 'content-type': 'application/json' },
      body: JSON.stringify({ phone: newPhone() }),
    });
    expect(noSession.status).toBe(401);
  });

  it('admin creates confirmed phone users; a second holder of the number is refused', async () => {
    const admin = createClient(t.url, t.serviceRoleKey, TEST_CLIENT_OPTIONS).auth.admin;
    const phone = newPhone();
    const created = await admin.createUser({ phone, password: TEST_PASSWORD, phone_confirm: true });
    expect(created.error).toBeNull();
    expect(created.data.user).toMatchObject({ phone, email: '', app_metadata: { provider: 'phone' } });
    expect(created.data.user!.phone_confirmed_at).toBeTruthy();
    expect((await client().auth.signInWithPassword({ phone, password: TEST_PASSWORD })).error).toBeNull();
    const twice = await admin.createUser({ phone: `+${phone}`, password: TEST_PASSWORD });
    expect(twice.error).toMatchObject({ status: 422, code: 'phone_exists' });
    const neither = await admin.createUser({ password: TEST_PASSWORD });
    expect(neither.error).toMatchObject({ code: 'validation_failed' });
    const both = await admin.createUser({ email: `both.${Date.now()}@example.com`, phone: newPhone() });
    expect(both.data.user!.identities!.map((i) => i.provider).sort()).toEqual(['email', 'phone']);
    expect(both.data.user!.phone_confirmed_at).toBeUndefined();
    const confirmed = await admin.updateUserById(both.data.user!.id, { phone_confirm: true });
    expect(confirmed.data.user!.phone_confirmed_at).toBeTruthy();
  });

  it('phone factors: enroll a number, a challenge texts a code, verifying it raises the session to aal2', async () => {
    const user = await t.signUp(`phone-mfa.${Date.now()}@example.com`);
    const sb = user.client;
    const phone = newPhone();
    const enrolled = await sb.auth.mfa.enroll({ factorType: 'phone', phone: `+${phone}`, friendlyName: 'mobile' });
    expect(enrolled.error).toBeNull();
    expect(enrolled.data).toMatchObject({ type: 'phone', friendly_name: 'mobile', phone: `+${phone}` });
    const factorId = enrolled.data!.id;
    const challenge = await sb.auth.mfa.challenge({ factorId });
    expect(challenge.error).toBeNull();
    expect(challenge.data).toMatchObject({ type: 'phone', expires_at: expect.any(Number) });
    const code = twilio.codeFor(phone)!;
    const tooSoon = await sb.auth.mfa.challenge({ factorId });
    expect(tooSoon.error).toMatchObject({ status: 429, code: 'over_sms_send_rate_limit' });

    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    const refused = await sb.auth.mfa.verify({ factorId, challengeId: challenge.data!.id, code: wrong });
    expect(refused.error).toMatchObject({ code: 'mfa_verification_failed', message: 'Invalid MFA Phone code entered' });
    const verified = await sb.auth.mfa.verify({ factorId, challengeId: challenge.data!.id, code });
    expect(verified.error).toBeNull();
    const claims = JSON.parse(Buffer.from(verified.data!.access_token.split('.')[1]!, 'base64url').toString());
    expect(claims.aal).toBe('aal2');
    expect(claims.amr.map((a: { method: string }) => a.method)).toContain('mfa/phone');
    const again = await sb.auth.mfa.verify({ factorId, challengeId: challenge.data!.id, code });
    expect(again.error).toMatchObject({ code: 'mfa_factor_not_found' });

    const signedIn = createClient(t.url, t.anonKey, TEST_CLIENT_OPTIONS);
    await signedIn.auth.signInWithPassword({ email: user.email, password: TEST_PASSWORD });
    const factors = await signedIn.auth.mfa.listFactors();
    expect(factors.data!.phone).toEqual([expect.objectContaining({ id: factorId, factor_type: 'phone', phone })]);
    const sameNumber = await signedIn.auth.mfa.enroll({ factorType: 'phone', phone });
    expect(sameNumber.error).toMatchObject({ code: 'mfa_verified_factor_exists' });
    const badNumber = await sb.auth.mfa.enroll({ factorType: 'phone', phone: 'abc' });
    expect(badNumber.error).toMatchObject({ code: 'validation_failed' });
  });
});

describe('with SMS auto-confirm, test OTPs and no provider', () => {
  let t: TestServer;
  const testNumber = '15550001111';
  const client = () => clientOf(t);

  beforeAll(async () => {
    t = await startTestServer({
      WORKERS_ENABLED: 'false',
      AUTH_EXTERNAL_PHONE_ENABLED: 'true',
      AUTH_SMS_AUTOCONFIRM: 'true',
      AUTH_SMS_TEST_OTP: `+1 555 000 1111:424242, 15550002222:135790`,
      AUTH_SMS_MAX_FREQUENCY: '1s',
    });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('signs up by number straight into a session, and signs in with the password (docker autoconfirm)', async () => {
    const phone = newPhone();
    const signUp = await client().auth.signUp({ phone, password: TEST_PASSWORD });
    expect(signUp.error).toBeNull();
    expect(signUp.data.session!.user).toMatchObject({ phone, phone_confirmed_at: expect.any(String) });
    const { data, error } = await client().auth.signInWithPassword({ phone, password: TEST_PASSWORD });
    expect(error).toBeNull();
    expect(data.session!.user).toMatchObject({ phone, app_metadata: { provider: 'phone' } });
    const twice = await client().auth.signUp({ phone, password: TEST_PASSWORD });
    expect(twice.error).toMatchObject({ code: 'user_already_exists' });
  });

  it('a test number is sent nothing and its configured code signs in', async () => {
    const sent = await client().auth.signInWithOtp({ phone: testNumber });
    expect(sent.error).toBeNull();
    const wrong = await client().auth.verifyOtp({ phone: testNumber, token: '111111', type: 'sms' });
    expect(wrong.error).toMatchObject({ code: 'otp_expired' });
    const { data, error } = await client().auth.verifyOtp({ phone: `+${testNumber}`, token: '424242', type: 'sms' });
    expect(error).toBeNull();
    expect(data.user!.phone).toBe(testNumber);
  });

  it('without a provider, another number gets sms_send_failed', async () => {
    const { error } = await client().auth.signInWithOtp({ phone: newPhone() });
    expect(error).toMatchObject({ status: 422, code: 'sms_send_failed' });
    expect(error!.message).toContain('no SMS provider is configured');
  });

  it('changes the number at once for a signed-in user', async () => {
    const user = await t.signUp(`autoconfirm-change.${Date.now()}@example.com`);
    const phone = newPhone();
    const { data, error } = await user.client.auth.updateUser({ phone });
    expect(error).toBeNull();
    expect(data.user).toMatchObject({ phone, phone_confirmed_at: expect.any(String) });
  });

  it('GET /settings shows the phone provider on and auto-confirmed', async () => {
    const settings = await (await fetch(`${t.url}/auth/v1/settings`, { headers: { apikey: t.anonKey } })).json();
    expect(settings).toMatchObject({ external: { phone: true }, phone_autoconfirm: true, sms_provider: '' });
  });
});

describe('with the phone provider off (the default)', () => {
  let t: TestServer;
  const client = () => clientOf(t);

  beforeAll(async () => {
    t = await startTestServer({ WORKERS_ENABLED: 'false' });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('answers phone_provider_disabled in GoTrue words on every phone entry point', async () => {
    const phone = newPhone();
    const signUp = await client().auth.signUp({ phone, password: TEST_PASSWORD });
    expect(signUp.error).toMatchObject({
      status: 400,
      code: 'phone_provider_disabled',
      message: 'Phone signups are disabled',
    });
    const otp = await client().auth.signInWithOtp({ phone });
    expect(otp.error).toMatchObject({ status: 400, code: 'phone_provider_disabled' });
    const password = await client().auth.signInWithPassword({ phone, password: TEST_PASSWORD });
    expect(password.error).toMatchObject({ status: 422, code: 'phone_provider_disabled' });
    const resend = await client().auth.resend({ type: 'sms', phone });
    expect(resend.error).toMatchObject({ status: 400, code: 'phone_provider_disabled' });
    const user = await t.signUp(`disabled-phone.${Date.now()}@example.com`);
    const enroll = await user.client.auth.mfa.enroll({ factorType: 'phone', phone });
    expect(enroll.error).toMatchObject({ status: 422, code: 'mfa_phone_enroll_not_enabled' });
    const settings = await fetch(`${t.url}/auth/v1/settings`, { headers: { apikey: t.anonKey } });
    expect(((await settings.json()) as { external: { phone: boolean } }).external.phone).toBe(false);
  });

  it('still serves e-mail sign-up and verification beside the phone routes', async () => {
    const email = `still-email.${Date.now()}@example.com`;
    const { data, error } = await client().auth.signUp({ email, password: TEST_PASSWORD });
    expect(error).toBeNull();
    expect(data.user!.email).toBe(email);
    const bad = await client().auth.verifyOtp({ email, token: '000000', type: 'email' });
    expect(bad.error).toMatchObject({ code: 'otp_expired' });
  });
});
