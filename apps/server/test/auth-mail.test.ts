// E-mail confirmation through the Resend provider, against a fake Resend API on loopback: sign-up without
// auto-confirm sends the link, sign-in waits for confirmation, the link confirms and signs in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from '@supabase/supabase-js';
import { startTestServer, type TestServer, NoWebSocket } from './support/test-server.js';
import type { RunningServer } from '@auction-ops/server';

interface ResendCall {
  auth: string | undefined;
  body: { from: string; to: string[]; subject: string; text: string; html: string };
}

let t: TestServer;
let server: RunningServer;
let resend: Server;
const calls: ResendCall[] = [];

beforeAll(async () => {
  resend = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => {
      raw += chunk;
    });
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/emails') {
        res.writeHead(404).end();
        return;
      }
      calls.push({ auth: req.headers.authorization, body: JSON.parse(raw) });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: `re_${calls.length}` }));
    });
  });
  await new Promise<void>((resolve) => resend.listen(0, '127.0.0.1', resolve));
  t = await startTestServer({
    JWT_SECRET: 'z'.repeat(40),
    WORKERS_ENABLED: 'false',
    AUTH_AUTOCONFIRM: 'false',
    RESEND_API_KEY: 're_test_key',
    RESEND_BASE_URL: `http://127.0.0.1:${(resend.address() as AddressInfo).port}`,
    MAIL_FROM: 'Auction Ops <auth@example.com>',
    APP_URL: 'http://app.example.test',
  });
  ({ server } = t);
});
afterAll(async () => {
  await t?.stop();
  await new Promise((resolve) => resend?.close(resolve));
});

const client = () =>
  createClient(server.url, server.ctx.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false },
    realtime: { transport: NoWebSocket as never },
  });

async function waitForCall(to: string): Promise<ResendCall> {
  for (let i = 0; i < 100; i++) {
    const call = calls.find((c) => c.body.to.includes(to));
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
    expect(call.auth).toBe('Bearer re_test_key');
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
    const before = calls.length;
    const second = await client().auth.signUp({ email, password: 'long enough pass' });
    expect(second.error).toBeNull();
    expect(Object.keys(second.data.user!).sort()).toEqual(
      expect.arrayContaining(['id', 'email', 'user_metadata', 'created_at']),
    );
    expect(second.data.user!.id).not.toBe(first.data.user!.id);
    await new Promise((r) => setTimeout(r, 200));
    expect(calls.length).toBe(before);
  });
});
