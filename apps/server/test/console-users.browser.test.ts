// The console's account repairs in Chromium against a real server that requires e-mail confirmation: a ban only
// after its confirmation, sessions revoked (their refresh tokens refused by /auth/v1/token), a second factor removed
// (the user signs in at aal1), an address confirmed (password sign-in goes through), the reset link and the
// invitation mailed to the outbox, the server's error with its hint, every action on screen at 390 px, and each new
// RPC refused to a user who is not a super admin.
import { randomUUID } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { launchChromium } from './support/browser.js';
import { consoleSignIn, openConsolePage } from './support/console-page.js';
import { mailTo } from './support/mail-outbox.js';
import { startTestServer, TEST_PASSWORD, type TestServer, testClient } from './support/test-server.js';

let server: TestServer;
let browser: Browser;
let page: Page;
const ROOT = 'root@users.test';

/** A confirmed user made through the admin API (sign-up alone leaves the address unconfirmed on this server). */
async function makeUser(email: string, fullName: string): Promise<string> {
  const admin = testClient(server.url, server.serviceRoleKey);
  const { data, error } = await admin.auth.admin.createUser({
    email,
    password: TEST_PASSWORD,
    email_confirm: true,
    user_metadata: { full_name: fullName },
  });
  if (error) throw error;
  return data.user.id;
}

async function signIn(email: string) {
  const client = server.client();
  const { data, error } = await client.auth.signInWithPassword({ email, password: TEST_PASSWORD });
  return { client, session: data.session, error };
}

/** POST /auth/v1/token with a refresh token: the status and, when it works, the next refresh token. */
async function refresh(token: string): Promise<{ status: number; next?: string }> {
  const response = await fetch(`${server.url}/auth/v1/token?grant_type=refresh_token`, {
    method: 'POST',
    headers: { apikey: server.anonKey, 'content-type': 'application/json' },
    body: JSON.stringify({ refresh_token: token }),
  });
  const body = (await response.json()) as { refresh_token?: string };
  return { status: response.status, next: body.refresh_token };
}

const status = () => page.getByRole('status').first().textContent();

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer({ AUTH_AUTOCONFIRM: 'false' }), launchChromium()]);
  const root = await makeUser(ROOT, 'Rita Root');
  await server.db.sql`insert into public.super_admins (user_id) values (${root})`;
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

beforeEach(async () => {
  await page?.close();
  page = await browser.newPage();
  await consoleSignIn(page, server.url, ROOT, TEST_PASSWORD);
  await page.waitForSelector('body[data-ready="status"]');
});

async function openUsers(query: string): Promise<void> {
  await page.goto('about:blank');
  await openConsolePage(page, server.url, 'users', `?q=${encodeURIComponent(query)}`);
}

it('bans only after the confirmation; Cancel leaves the user as they were', async () => {
  await makeUser('bert@users.test', 'Bert Banned');
  const before = await signIn('bert@users.test');
  await openUsers('bert');

  await page.getByRole('button', { name: 'Ban bert@users.test' }).click();
  expect(await page.locator('.confirm').first().innerText()).toMatch(/Ban bert@users\.test\?\s*Confirm\s*Cancel/);
  await page.getByRole('button', { name: 'Cancel ban of bert@users.test' }).click();
  await page.getByRole('button', { name: 'Ban bert@users.test' }).waitFor();
  // Asked and cancelled: nothing happened.
  expect((await signIn('bert@users.test')).error).toBeNull();

  await page.getByRole('button', { name: 'Ban bert@users.test' }).click();
  await page.getByRole('button', { name: 'Confirm ban of bert@users.test' }).click();
  await expect.poll(status).toBe('bert@users.test banned; their sessions ended.');
  expect((await signIn('bert@users.test')).error?.code).toBe('user_banned');
  expect((await refresh(before.session!.refresh_token)).status).toBe(400);
});

it('revokes one session, then all of them: /auth/v1/token refuses their refresh tokens', async () => {
  await makeUser('carl@users.test', 'Carl Sessions');
  const older = await signIn('carl@users.test');
  const newer = await signIn('carl@users.test');
  await openUsers('carl');
  await page.getByRole('button', { name: 'Sessions of carl@users.test' }).click();
  const sessions = page.getByRole('table', { name: 'Sessions of carl@users.test' });
  await sessions.waitFor();
  expect(await sessions.locator('tbody tr').count()).toBe(2);

  // Newest first: the first row is the second sign-in.
  await sessions
    .getByRole('button', { name: /^Revoke the session of carl@users\.test/ })
    .first()
    .click();
  await expect
    .poll(() => page.getByRole('region', { name: 'User details' }).getByRole('status').first().textContent())
    .toBe('Session of carl@users.test revoked: its refresh token no longer works.');
  expect(await sessions.locator('tbody tr').count()).toBe(1);
  expect((await refresh(newer.session!.refresh_token)).status).toBe(400);
  const kept = await refresh(older.session!.refresh_token);
  expect(kept.status).toBe(200);

  await page.getByRole('button', { name: 'Revoke all sessions of carl@users.test' }).click();
  await expect
    .poll(() => page.getByRole('region', { name: 'User details' }).getByRole('status').first().textContent())
    .toBe('1 session of carl@users.test revoked: their refresh tokens no longer work.');
  expect((await refresh(kept.next!)).status).toBe(400);
  expect(await page.getByText('carl@users.test has no open sessions.').count()).toBe(1);
});

it('removes a second factor: it is gone, and the user signs in at aal1', async () => {
  await makeUser('dora@users.test', 'Dora Factor');
  const { client } = await signIn('dora@users.test');
  const enrolled = await client.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Dora phone' });
  expect(enrolled.error).toBeNull();
  const totp = new TOTP({ secret: Secret.fromBase32(enrolled.data!.totp.secret), digits: 6, period: 30 });
  const verified = await client.auth.mfa.challengeAndVerify({ factorId: enrolled.data!.id, code: totp.generate() });
  expect(verified.error).toBeNull();
  const withFactor = (await signIn('dora@users.test')).client;
  expect((await withFactor.auth.mfa.getAuthenticatorAssuranceLevel()).data?.nextLevel).toBe('aal2');

  await openUsers('dora');
  await page.getByRole('button', { name: 'Sessions of dora@users.test' }).click();
  const factors = page.getByRole('table', { name: 'Second factors of dora@users.test' });
  expect(await factors.locator('tbody tr').innerText()).toMatch(/Dora phone\s+.*totp\s+.*verified/s);
  await page.getByRole('button', { name: 'Remove factor Dora phone of dora@users.test' }).click();
  await expect
    .poll(() => page.getByRole('region', { name: 'User details' }).getByRole('status').first().textContent())
    .toBe('Factor Dora phone of dora@users.test removed; they now sign in with one factor.');
  expect(await page.getByText('dora@users.test has no second factors.').count()).toBe(1);

  const after = (await signIn('dora@users.test')).client;
  expect((await after.auth.mfa.listFactors()).data?.all).toEqual([]);
  const level = (await after.auth.mfa.getAuthenticatorAssuranceLevel()).data;
  expect(level).toMatchObject({ currentLevel: 'aal1', nextLevel: 'aal1' });
});

it('confirms an address: password sign-in goes through where confirmation is required', async () => {
  const signUp = await server.client().auth.signUp({ email: 'erin@users.test', password: TEST_PASSWORD });
  expect(signUp.error).toBeNull();
  expect(signUp.data.session).toBeNull();
  expect((await signIn('erin@users.test')).error?.code).toBe('email_not_confirmed');

  await openUsers('erin');
  expect(await page.locator('tbody tr').first().innerText()).toMatch(/Active, unconfirmed/);
  await page.getByRole('button', { name: 'Confirm e-mail of erin@users.test' }).click();
  await expect.poll(status).toBe('erin@users.test confirmed; they can sign in with their password.');
  expect(await page.getByRole('button', { name: 'Confirm e-mail of erin@users.test' }).count()).toBe(0);
  expect((await signIn('erin@users.test')).error).toBeNull();
});

it('mails the invitation again and a reset link, to the outbox; both links work', async () => {
  const admin = testClient(server.url, server.serviceRoleKey);
  expect((await admin.auth.admin.inviteUserByEmail('fay@users.test')).error).toBeNull();
  await mailTo(server.db, server.url, 'fay@users.test', 1);
  await openUsers('fay');
  expect(await page.locator('tbody tr').first().innerText()).toMatch(/Active, invited/);
  await page.getByRole('button', { name: 'Resend invitation to fay@users.test' }).click();
  await expect.poll(status).toBe('Invitation link sent again to fay@users.test.');
  const invitation = await mailTo(server.db, server.url, 'fay@users.test', 2);
  const accepted = await server.client().auth.verifyOtp({
    email: 'fay@users.test',
    token: invitation.code,
    type: 'signup',
  });
  expect(accepted.error).toBeNull();
  expect(accepted.data.user?.email_confirmed_at).toBeTruthy();

  await makeUser('gus@users.test', 'Gus Reset');
  await openUsers('gus');
  await page.getByRole('button', { name: 'Send password reset to gus@users.test' }).click();
  await expect.poll(status).toBe('Password-reset e-mail sent to gus@users.test.');
  const reset = await mailTo(server.db, server.url, 'gus@users.test', 1);
  const [{ subject }] = await server.db.sql`select subject from auth.mail_outbox where to_email = 'gus@users.test'`;
  expect(subject).toBe('Reset your password');
  const recovered = await server.client().auth.verifyOtp({
    email: 'gus@users.test',
    token: reset.code,
    type: 'recovery',
  });
  expect(recovered.error).toBeNull();
});

it('shows the server’s error with its hint', async () => {
  await makeUser('hank@users.test', 'Hank Gone');
  const { client } = await signIn('hank@users.test');
  await openUsers('hank');
  await page.getByRole('button', { name: 'Sessions of hank@users.test' }).click();
  await page.getByRole('table', { name: 'Sessions of hank@users.test' }).waitFor();
  // The session ends on its own before the console revokes it.
  expect((await client.auth.signOut()).error).toBeNull();
  await page.getByRole('button', { name: /^Revoke the session of hank@users\.test/ }).click();
  await expect
    .poll(() => page.getByRole('alert').first().textContent())
    .toBe('session not found (It may have ended already (signed out or expired): list the sessions again.)');
});

it('keeps every action on screen at 390 px', async () => {
  await makeUser('ivy@users.test', 'Ivy Phone');
  const { client } = await signIn('ivy@users.test');
  expect((await client.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Ivy key' })).error).toBeNull();
  await page.setViewportSize({ width: 390, height: 844 });
  await openUsers('');
  await page.getByRole('button', { name: 'Ban ivy@users.test' }).click();
  await page.getByRole('button', { name: 'Sessions of ivy@users.test' }).click();
  await page.getByRole('table', { name: 'Second factors of ivy@users.test' }).waitFor();
  const buttons = page.locator('main button');
  const count = await buttons.count();
  const names = await buttons.evaluateAll((all) => all.map((b) => b.getAttribute('aria-label')));
  for (const name of [
    'Confirm ban of ivy@users.test',
    'Cancel ban of ivy@users.test',
    'Revoke all sessions of ivy@users.test',
    'Remove factor Ivy key of ivy@users.test',
    'Send password reset to ivy@users.test',
  ]) {
    expect(names).toContain(name);
  }
  // Not scrolled into view: a button reachable only by scrolling its table sideways lies past x = 390.
  for (let i = 0; i < count; i++) {
    const button = buttons.nth(i);
    const box = await button.boundingBox();
    const name = await button.getAttribute('aria-label');
    expect(box, name ?? '').not.toBeNull();
    expect(box!.x, name ?? '').toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width, name ?? '').toBeLessThanOrEqual(390);
  }
  expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
});

it('each new RPC refuses a user who is not a super admin, and changes nothing', async () => {
  const victim = await makeUser('jill@users.test', 'Jill Kept');
  const kept = await signIn('jill@users.test');
  await makeUser('mia@users.test', 'Mia Member');
  const mia = testClient(server.url, server.anonKey, (await signIn('mia@users.test')).session!.access_token);
  const { data: factor } = await kept.client.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Jill key' });
  await server.client().auth.signUp({ email: 'kim@users.test', password: TEST_PASSWORD });
  const [{ id: kim }] = await server.db.sql`select id from auth.users where email = 'kim@users.test'`;

  const calls: [string, Record<string, unknown>][] = [
    ['admin_search_users', { p_query: 'jill' }],
    ['admin_revoke_user_sessions', { p_user_id: victim }],
    ['admin_revoke_user_sessions', { p_user_id: victim, p_session_id: randomUUID() }],
    ['admin_user_factors', { p_user_id: victim }],
    ['admin_delete_user_factor', { p_user_id: victim, p_factor_id: factor!.id }],
    ['admin_confirm_user_email', { p_user_id: kim }],
  ];
  for (const [fn, args] of calls) {
    const { data, error } = await mia.rpc(fn, args);
    expect(error?.code, fn).toBe('42501');
    expect(data, fn).toBeNull();
  }
  expect((await refresh(kept.session!.refresh_token)).status).toBe(200);
  expect((await kept.client.auth.mfa.listFactors()).data?.all.map((f) => f.id)).toEqual([factor!.id]);
  expect((await signIn('kim@users.test')).error?.code).toBe('email_not_confirmed');
});
