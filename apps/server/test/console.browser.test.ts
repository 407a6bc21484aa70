// The admin console in Chromium against a real server: sign-in, the refusal of a non-super-admin, each page with
// real data, an auction's archive downloaded, a ban that takes effect, a password-reset e-mail, Replay reaching a
// receiver on loopback, and the layout at a phone's width.
import { readFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { launchChromium } from './support/browser.js';
import { consoleSignIn, openConsolePage } from './support/console-page.js';
import { type LoopbackServer, startLoopbackServer, until } from './support/loopback.js';
import { type SignedUpUser, startTestServer, TEST_PASSWORD, type TestServer } from './support/test-server.js';

let server: TestServer;
let browser: Browser;
let page: Page;
let root: SignedUpUser;
let mia: SignedUpUser;
let receiver: LoopbackServer;
const received: { webhookId: string | undefined }[] = [];
let auctionId: string;

beforeAll(async () => {
  // The receiver refuses the first delivery and takes every later one.
  receiver = await startLoopbackServer((req, _body, res) => {
    received.push({ webhookId: req.headers['webhook-id'] as string | undefined });
    if (received.length === 1) res.writeHead(500).end('receiver down for maintenance');
    else res.writeHead(200).end('ok');
  });
  [server, browser] = await Promise.all([
    startTestServer({
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8',
      // One attempt per round: the refused delivery ends failed at once, so only Replay sends it again.
      WEBHOOK_RETRY_SCHEDULE: '0',
      WEBHOOK_POLL_INTERVAL_MS: '200',
    }),
    launchChromium(),
  ]);
  root = await server.signUp('root@console.test', 'Rita Root');
  mia = await server.signUp('mia@console.test', 'Mia Member');
  await server.db.sql`insert into public.super_admins (user_id) values (${root.id})`;
  [{ id: auctionId }] = await server.db.sql`
    insert into public.auctions (name, slug, subscription_tier) values ('Riverside Motors', 'riverside-motors', 'pro')
    returning id`;
  await server.db.sql`insert into public.auction_members (auction_id, user_id, role)
    values (${auctionId}, ${root.id}, 'owner'), (${auctionId}, ${mia.id}, 'team_member')`;
  await server.db.sql`insert into public.locations (auction_id, name)
    values (${auctionId}, 'North lot'), (${auctionId}, 'South lot'), (${auctionId}, 'East lot')`;
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await receiver?.close();
});

beforeEach(async () => {
  await page?.close();
  page = await browser.newPage();
});

const signInAsRoot = () => consoleSignIn(page, server.url, root.email, TEST_PASSWORD);

it('refuses a user who is not a super admin, in words, and keeps no session', async () => {
  await consoleSignIn(page, server.url, mia.email, TEST_PASSWORD);
  await expect
    .poll(() => page.getByRole('alert').textContent())
    .toBe("mia@console.test is not a super admin: this console is for the server's operators only.");
  expect(await page.getByRole('navigation').count()).toBe(0);
  await page.reload();
  await page.waitForSelector('body[data-ready="sign-in"]');
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Sign in to the console');
});

it('refuses a wrong password with the reason', async () => {
  await consoleSignIn(page, server.url, root.email, 'not-the-password');
  await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/^Sign-in failed: /);
});

it('signs a super admin in and shows the server status', async () => {
  await signInAsRoot();
  await page.waitForSelector('body[data-ready="status"]');
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Server status');
  const health = (await (await fetch(`${server.url}/health`)).json()) as { version: string };
  const server_ = page.getByRole('region', { name: 'Server' });
  expect(await server_.locator('dd').first().textContent()).toBe(health.version);
  const database = await page.getByRole('region', { name: 'Database' }).innerText();
  expect(database).toMatch(/status\s+up/);
  expect(database).toMatch(/server_version\s+1\d/);
  expect(await page.getByRole('region', { name: 'Limits' }).innerText()).toMatch(/rest_max_rows\s+1000/);
});

it('finds users by name, shows their sessions and sends a password-reset e-mail', async () => {
  await signInAsRoot();
  await page.waitForSelector('body[data-ready="status"]');
  await openConsolePage(page, server.url, 'users');
  await page.getByLabel('Search by e-mail or name').fill('mia mem');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect.poll(() => page.locator('caption').first().textContent()).toBe('1 user matching “mia mem”');
  expect(await page.locator('tbody tr').first().innerText()).toMatch(/mia@console\.test\s+Mia Member/);

  await page.getByRole('button', { name: 'Sessions of mia@console.test' }).click();
  await page.getByRole('table', { name: 'Sessions of mia@console.test' }).waitFor();
  expect(await page.getByRole('table', { name: 'Sessions of mia@console.test' }).locator('tbody tr').count()).toBe(1);

  await page.getByRole('button', { name: 'Send password reset to mia@console.test' }).click();
  await expect
    .poll(() => page.getByRole('status').last().textContent())
    .toBe('Password-reset e-mail sent to mia@console.test.');
  // The mail is sent after the answer; the development outbox keeps it.
  await until(async () => {
    const mails = await server.db.sql`select subject from auth.mail_outbox where to_email = ${mia.email}`;
    return mails.some((m) => m.subject === 'Reset your password');
  }, 'the password-reset e-mail');
});

it('a ban takes effect: the banned user cannot sign in nor refresh; unbanned, they can again', async () => {
  const other = await server.signUp('bert@console.test', 'Bert Banned');
  const { data: before } = await other.client.auth.getSession();
  await signInAsRoot();
  await page.waitForSelector('body[data-ready="status"]');
  await openConsolePage(page, server.url, 'users', '?q=bert');
  await page.getByRole('button', { name: 'Ban bert@console.test' }).click();
  await page.getByRole('button', { name: 'Confirm ban of bert@console.test' }).click();
  await expect
    .poll(() => page.getByRole('status').first().textContent())
    .toBe('bert@console.test banned; their sessions ended.');
  expect(await page.locator('tbody tr').first().innerText()).toMatch(/Banned\s+0/);

  const again = await server.client().auth.signInWithPassword({ email: other.email, password: TEST_PASSWORD });
  expect(again.error?.code).toBe('user_banned');
  const refreshed = await server.client().auth.refreshSession({ refresh_token: before.session!.refresh_token });
  expect(refreshed.error).not.toBeNull();

  await page.getByRole('button', { name: 'Unban bert@console.test' }).click();
  await expect.poll(() => page.getByRole('status').first().textContent()).toBe('bert@console.test unbanned.');
  const after = await server.client().auth.signInWithPassword({ email: other.email, password: TEST_PASSWORD });
  expect(after.error).toBeNull();
});

it('a super admin cannot ban themselves', async () => {
  await signInAsRoot();
  await page.waitForSelector('body[data-ready="status"]');
  await openConsolePage(page, server.url, 'users', '?q=root');
  await page.getByRole('button', { name: 'Ban root@console.test' }).click();
  await page.getByRole('button', { name: 'Confirm ban of root@console.test' }).click();
  await expect.poll(() => page.getByRole('alert').textContent()).toBe('a super admin cannot ban themselves');
});

it('lists auctions with tier, locations and members, and an auction’s members with their roles', async () => {
  await signInAsRoot();
  await page.waitForSelector('body[data-ready="status"]');
  await openConsolePage(page, server.url, 'auctions', '?q=river');
  const row = page.locator('tbody tr').first();
  expect(await row.innerText()).toMatch(/Riverside Motors\s+riverside-motors\s+pro\s+yes\s+3\s+2 members/);
  await page.getByRole('button', { name: '2 members of Riverside Motors' }).click();
  const members = page.getByRole('table', { name: 'Members of Riverside Motors' });
  await members.waitFor();
  const text = await members.innerText();
  expect(text).toMatch(/root@console\.test\s+Rita Root\s+owner/);
  expect(text).toMatch(/mia@console\.test\s+Mia Member\s+team_member/);

  await openConsolePage(page, server.url, 'auctions', '?q=nothing-like-it');
  expect(await page.getByRole('status').textContent()).toBe('No auction matches.');
});

it('downloads an auction’s archive from the auctions page', async () => {
  await signInAsRoot();
  await page.waitForSelector('body[data-ready="status"]');
  await openConsolePage(page, server.url, 'auctions', '?q=river');
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Download Riverside Motors' }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^riverside-motors-\d{4}-\d\d-\d\d\.auction\.gz$/);
  const bytes = await readFile((await download.path())!);
  expect(gunzipSync(bytes).toString('latin1')).toContain('Riverside Motors');
});

it('shows a failed webhook delivery with its response, and Replay delivers it to the receiver', async () => {
  const url = `${receiver.url}/hook`;
  const { data: endpoint, error } = await root.client
    .from('webhook_endpoints')
    .insert({ auction_id: auctionId, url, events: ['member.joined'], secret: 'a-signing-secret-of-some-length' })
    .select('id')
    .single();
  expect(error).toBeNull();
  const sent = await root.client.rpc('test_webhook', { endpoint_id: endpoint!.id, event_type: 'member.joined' });
  expect(sent.error).toBeNull();
  await until(async () => {
    const [d] = await server.db.sql`select status from public.webhook_deliveries where endpoint_id = ${endpoint!.id}`;
    return d?.status === 'failed';
  }, 'the first delivery to fail');

  await signInAsRoot();
  await page.waitForSelector('body[data-ready="status"]');
  await openConsolePage(page, server.url, 'webhooks');
  expect(await page.locator('tbody tr').first().innerText()).toContain(url);
  await page.getByRole('button', { name: `Deliveries to ${url}` }).click();
  const log = page.getByRole('table', { name: `Deliveries to ${url}` });
  await log.waitFor();
  expect(await log.locator('tbody tr').first().innerText()).toMatch(
    /member\.joined\s+1\s+failed\s+500 receiver down for maintenance/,
  );

  await page.getByRole('button', { name: 'Replay member.joined delivery' }).click();
  await until(() => received.length === 2, 'the replayed delivery');
  expect(received[1].webhookId).toBe(received[0].webhookId);
  await until(async () => {
    const [d] = await server.db.sql`select status from public.webhook_deliveries where endpoint_id = ${endpoint!.id}`;
    return d?.status === 'delivered';
  }, 'the replay to be recorded');
  await page.getByRole('button', { name: `Deliveries to ${url}` }).click();
  await expect
    .poll(() => log.locator('tbody tr').first().innerText())
    .toMatch(/member\.joined\s+2\s+delivered\s+200 ok/);
});

it('fits a phone’s width: nothing but the tables scrolls sideways', async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signInAsRoot();
  await page.waitForSelector('body[data-ready="status"]');
  for (const id of ['status', 'users', 'auctions', 'webhooks']) {
    await openConsolePage(page, server.url, id);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
  }
});
