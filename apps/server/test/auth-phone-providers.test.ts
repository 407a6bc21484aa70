// Phone codes through GoTrue's other SMS providers, Vonage, Messagebird and Textlocal, each a fake on loopback:
// the form and authentication each provider is sent, sign-in with the code through supabase-js, a refusal or a
// failing gateway answered as sms_send_failed with the reason, and WhatsApp refused (Twilio's alone).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '@supabase/supabase-js';
import { startTestServer, type TestServer, TEST_CLIENT_OPTIONS } from './support/test-server.js';
import {
  type FakeSmsProvider,
  startFakeMessagebird,
  startFakeTextlocal,
  startFakeVonage,
} from './support/fake-sms-providers.js';

let n = 0;
const newPhone = () => `1555${String(Date.now() % 1e4).padStart(4, '0')}${String(++n).padStart(3, '0')}`;

const PROVIDERS = [
  {
    name: 'vonage',
    start: startFakeVonage,
    env: (url: string) => ({
      AUTH_SMS_VONAGE_API_KEY: 'vonage-key',
      AUTH_SMS_VONAGE_API_SECRET: 'vonage-secret',
      AUTH_SMS_VONAGE_FROM: 'YardOps',
      AUTH_SMS_VONAGE_API_URL: url,
    }),
    sent: (phone: string, text: string) => ({
      from: 'YardOps',
      to: phone,
      text,
      api_key: 'vonage-key',
      api_secret: 'vonage-secret',
    }),
    authorization: undefined,
    reason: 'vonage error: Unroutable message - rejected (status: 6)',
  },
  {
    name: 'messagebird',
    start: startFakeMessagebird,
    env: (url: string) => ({
      AUTH_SMS_MESSAGEBIRD_ACCESS_KEY: 'bird-key',
      AUTH_SMS_MESSAGEBIRD_ORIGINATOR: 'YardOps',
      AUTH_SMS_MESSAGEBIRD_API_URL: url,
    }),
    sent: (phone: string, text: string) => ({
      originator: 'YardOps',
      recipients: phone,
      body: text,
      type: 'sms',
      datacoding: 'unicode',
    }),
    authorization: 'AccessKey bird-key',
    reason: 'no (correct) recipients found',
  },
  {
    name: 'textlocal',
    start: startFakeTextlocal,
    env: (url: string) => ({
      AUTH_SMS_TEXTLOCAL_API_KEY: 'textlocal-key',
      AUTH_SMS_TEXTLOCAL_SENDER: 'YARDOP',
      AUTH_SMS_TEXTLOCAL_API_URL: url,
    }),
    sent: (phone: string, text: string) => ({
      sender: 'YARDOP',
      apikey: 'textlocal-key',
      message: text,
      numbers: phone,
    }),
    authorization: undefined,
    reason: 'textlocal error: No valid numbers specified (code: 51)',
  },
] as const;

describe.each(PROVIDERS)('with the $name provider', (provider) => {
  let t: TestServer;
  let fake: FakeSmsProvider;
  const client = () => createClient(t.url, t.anonKey, TEST_CLIENT_OPTIONS);

  beforeAll(async () => {
    fake = await provider.start();
    t = await startTestServer({
      WORKERS_ENABLED: 'false',
      AUTH_EXTERNAL_PHONE_ENABLED: 'true',
      AUTH_SMS_PROVIDER: provider.name,
      // Beyond ASCII, so Vonage must be told the text is unicode.
      AUTH_SMS_TEMPLATE: 'Dein Code für den Hof: {{ .Code }}',
      AUTH_RATE_LIMIT_SIGN_UP: '1000',
      ...provider.env(fake.url),
    });
  });
  afterAll(async () => {
    await t?.stop();
    await fake?.close();
  });

  it('texts a code in the provider’s form, and the code signs the number in', async () => {
    const phone = newPhone();
    const sb = client();
    expect((await sb.auth.signInWithOtp({ phone: `+${phone}` })).error).toBeNull();
    const code = fake.codeFor(phone)!;
    expect(code).toMatch(/^\d{6}$/);
    const call = fake.calls.at(-1)!;
    const text = `Dein Code für den Hof: ${code}`;
    expect(call.form).toMatchObject(provider.sent(phone, text));
    if (provider.name === 'vonage') expect(call.form.type).toBe('unicode');
    expect(call.authorization).toBe(provider.authorization);
    const verified = await sb.auth.verifyOtp({ phone, token: code, type: 'sms' });
    expect(verified.error).toBeNull();
    expect(verified.data.user).toMatchObject({ phone, app_metadata: { provider: 'phone' } });
    expect(verified.data.session?.access_token).toBeTruthy();
  });

  // `refused`: the provider's own error answer; `broken`: a failing gateway in front of it (502, not JSON).
  it.each([
    ['refused', provider.reason],
    ['broken', '502'],
  ] as const)('answers sms_send_failed when the provider is %s, saying why, and creates no user', async (mode, why) => {
    const phone = newPhone();
    fake.mode = mode;
    try {
      const failed = await client().auth.signInWithOtp({ phone });
      expect(failed.error).toMatchObject({ status: 422, code: 'sms_send_failed' });
      expect(failed.error!.message).toContain(why);
    } finally {
      fake.mode = 'ok';
    }
    const [row] = await t.db.sql<
      Array<{ n: number }>
    >`select count(*)::int as n from auth.users where phone = ${phone}`;
    expect(row!.n).toBe(0);
  });

  it('refuses WhatsApp, which only Twilio sends, without calling the provider', async () => {
    const calls = fake.calls.length;
    const { error } = await client().auth.signInWithOtp({ phone: newPhone(), options: { channel: 'whatsapp' } });
    expect(error).toMatchObject({ status: 400 });
    expect(fake.calls.length).toBe(calls);
  });
});
