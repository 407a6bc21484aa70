// E-mail confirmation through the Resend provider, against a fake Resend API on loopback: sign-up without
// auto-confirm sends the link, sign-in waits for confirmation, the link confirms and signs in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '@supabase/supabase-js';
import { type FakeResend, type ResendCall, startFakeResend } from './support/fake-resend.js';
import { startTestServer, type TestServer, NoWebSocket } from './support/test-server.js';
import type { RunningServer } from '@auction-ops/server';

let t: TestServer;
let server: RunningServer;
let resend: FakeResend;

beforeAll(async () => {
  resend = await startFakeResend();
  t = await startTestServer({
    JWT_SECRET: 'z'.repeat(40),
    WORKERS_ENABLED: 'false',
    AUTH_AUTOCONFIRM: 'false',
    RESEND_API_KEY: 're_test_key',
    RESEND_BASE_URL: resend.url,
    MAIL_FROM: 'Auction Ops <auth@example.com>',
    APP_URL: 'http://app.example.test',
  });
  ({ server } = t);
});
afterAll(async () => {
  await t?.stop();
  await resend?.close();
});

const client = () =>
  createClient(server.url, server.ctx.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false },
    realtime: { transport: NoWebSocket as never },
  });

async function waitForCall(to: string): Promise<ResendCall> {
  for (let i = 0; i < 100; i++) {
    const call = resend.calls.find((c) => c.body.to.includes(to));
    if (call) return call;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no mail to ${to}`);
}

describe('confirmation e-mail through Resend', () => {
  it('signs up unconfirmed, mails the link, refuses sign-in until the link is followed', async () => {
    const email = 'confirm.me@example.com';
    const signUp = await client().auth.signUp({ email, password: 'long enough pass' });
    expect(signUp.error).toBeNull();
    expect(signUp.data.session).toBeNull();
    expect(signUp.data.user?.email).toBe(email);

    const call = await waitForCall(email);
    expect(call.authorization).toBe('Bearer re_test_key');
    expect(call.body.from).toBe('Auction Ops <auth@example.com>');
    expect(call.body.subject).toMatch(/confirm/i);
    const early = await client().auth.signInWithPassword({ email, password: 'long enough pass' });
    expect(early.error).toMatchObject({ status: 400, code: 'email_not_confirmed' });

    const link = call.body.text
      .match(/https?:\/\/\S+\/auth\/v1\/verify\S+/)![0]
      .replace(/^https?:\/\/[^/]+/, server.url);
    const res = await fetch(link, { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(new URLSearchParams(new URL(res.headers.get('location')!).hash.slice(1)).get('type')).toBe('signup');
    expect((await client().auth.signInWithPassword({ email, password: 'long enough pass' })).error).toBeNull();
  });

  it('answers a second sign-up of the same address like a first one and sends nothing', async () => {
    const email = 'taken@example.com';
    const first = await client().auth.signUp({ email, password: 'long enough pass' });
    await waitForCall(email);
    const before = resend.calls.length;
    const second = await client().auth.signUp({ email, password: 'long enough pass' });
    expect(second.error).toBeNull();
    expect(Object.keys(second.data.user!).sort()).toEqual(
      expect.arrayContaining(['id', 'email', 'user_metadata', 'created_at']),
    );
    expect(second.data.user!.id).not.toBe(first.data.user!.id);
    await new Promise((r) => setTimeout(r, 200));
    expect(resend.calls.length).toBe(before);
  });
});
