// The admin console's operations pages in Chromium against a real server: CSV imports (datasets and their status),
// the outboxes (push jobs with state, attempts and last error; mail the functions sent; the auth mail outbox) and
// realtime (the server's own count of sockets and channels, rising and falling with a real supabase-js channel).
import { createClient } from '@supabase/supabase-js';
import type { Browser, Page } from 'playwright-core';
import WebSocket from 'ws';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { launchChromium } from './support/browser.js';
import { consoleSignIn, openConsolePage } from './support/console-page.js';
import { until } from './support/loopback.js';
import { type SignedUpUser, startTestServer, TEST_PASSWORD, type TestServer } from './support/test-server.js';

let server: TestServer;
let browser: Browser;
let page: Page;
let root: SignedUpUser;
let mia: SignedUpUser;
let auctionId: string;

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchChromium()]);
  root = await server.signUp('root@ops.test', 'Rita Root');
  mia = await server.signUp('mia@ops.test', 'Mia Member');
  await server.db.sql`insert into public.super_admins (user_id) values (${root.id})`;
  [{ id: auctionId }] = await server.db.sql`
    insert into public.auctions (name, slug) values ('Harbour Cars', 'harbour-cars') returning id`;
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** Opens a page in a fresh document: reopening the same URL with its hash alone would not load it again. */
async function open(id: string): Promise<void> {
  await page.goto('about:blank');
  await openConsolePage(page, server.url, id);
}

beforeEach(async () => {
  await page?.close();
  page = await browser.newPage();
  await consoleSignIn(page, server.url, root.email, TEST_PASSWORD);
  await page.waitForSelector('body[data-ready="status"]');
});

it('CSV imports: every dataset with its status and rows; a failed one is called out', async () => {
  await open('imports');
  expect(await page.getByRole('status').textContent()).toBe('No CSV imports yet.');
  await server.db.sql`insert into public.datasets (auction_id, name, status, row_count, columns, table_name)
    values (${auctionId}, 'Lot prices 2025', 'ready', 1234, '[{"name":"lot"},{"name":"price"}]', 'ds_lot_prices')`;
  await server.db.sql`insert into public.datasets (auction_id, name, status)
    values (${auctionId}, 'Broken export', 'failed')`;
  await open('imports');
  expect(await page.locator('caption').textContent()).toBe('2 datasets');
  const text = await page.getByRole('table').innerText();
  expect(text).toMatch(/Harbour Cars\s+Lot prices 2025\s+ready\s+1234\s+2\s+.+\s+loaded/);
  expect(text).toMatch(/Harbour Cars\s+Broken export\s+failed\s+0\s+0\s+.+\s+the first import failed/);
  expect(await page.getByRole('alert').textContent()).toBe('1 dataset failed to import.');
});

it('outboxes: push jobs with state, attempts and last error; function mail; the auth mail outbox', async () => {
  await server.db.sql`insert into notifications.push_jobs (kind, subject_id, auction_id, status, attempts, last_error)
    values ('chat_message', gen_random_uuid(), ${auctionId}, 'failed', 3, 'DeviceNotRegistered from the provider')`;
  await server.db.sql`insert into public.email_log (user_id, to_email, template, status, error)
    values (${mia.id}, ${mia.email}, 'invite', 'failed', 'mail provider answered 503')`;
  const { error } = await server.client().auth.resetPasswordForEmail(mia.email);
  expect(error).toBeNull();
  await until(async () => {
    const rows = await server.db.sql`select 1 from auth.mail_outbox where to_email = ${mia.email}`;
    return rows.length > 0;
  }, 'the password-reset mail');

  await open('outboxes');
  const push = page.getByRole('region', { name: 'Push jobs' });
  expect(await push.locator('tbody tr').first().innerText()).toMatch(
    /chat_message\s+Harbour Cars\s+failed\s+3\s+—\s+DeviceNotRegistered from the provider/,
  );
  expect(await page.getByRole('alert').textContent()).toBe('1 push job failed.');
  const functionMail = page.getByRole('region', { name: 'Mail sent by functions' });
  expect(await functionMail.locator('tbody tr').first().innerText()).toMatch(
    /mia@ops\.test\s+invite\s+failed\s+mail provider answered 503/,
  );
  const authMail = await page.getByRole('region', { name: 'Auth mail outbox' }).innerText();
  expect(authMail).toMatch(/mia@ops\.test\s+Reset your password/);
});

it('outbox RPCs refuse a user who is not a super admin', async () => {
  for (const fn of ['admin_push_jobs', 'admin_mail_outbox']) {
    const { data, error } = await mia.client.rpc(fn);
    expect(error?.code, fn).toBe('42501');
    expect(data, fn).toBeNull();
  }
});

it('realtime: the server’s own count of connections and channels follows a real client', async () => {
  const numbers = async () => {
    await open('realtime');
    return page.getByRole('region', { name: 'Now' }).innerText();
  };
  expect(await numbers()).toMatch(/connections\s+0\s+joined channels\s+0/);

  // An auction's private topic, joined by a super admin (whom the topic policies let in).
  const client = createClient(server.url, server.anonKey, {
    accessToken: async () => root.token,
    realtime: { transport: WebSocket as never, heartbeatIntervalMs: 60_000 },
  });
  await client.realtime.setAuth(root.token);
  const channel = client.channel(`auction:${auctionId}:floor`, { config: { private: true } });
  const statuses: string[] = [];
  channel.subscribe((status) => statuses.push(status));
  await until(() => statuses.includes('SUBSCRIBED'), `the subscription (${statuses.join(', ')})`);
  try {
    expect(await numbers()).toMatch(/connections\s+1\s+joined channels\s+1/);
  } finally {
    await client.removeAllChannels();
    await client.realtime.disconnect();
  }
  await expect.poll(numbers, { timeout: 10_000 }).toMatch(/connections\s+0\s+joined channels\s+0/);
});

it('the realtime numbers are refused to a user who is not a super admin', async () => {
  const response = await fetch(`${server.url}/console/api/status`, {
    headers: { authorization: `Bearer ${mia.token}` },
  });
  expect(response.status).toBe(403);
  expect(JSON.stringify(await response.json())).not.toContain('connections');
});
