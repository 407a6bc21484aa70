// The console's status page in Chromium against a real server (external database, no BACKUP_TARGET): each part
// with its state and one-line reason, a webhook backlog and a disabled endpoint shown as a warning, numbers
// formatted for people; at 1280 px and at a phone's 390 px nothing sticks out of the viewport, and no request of the
// page (the favicon included) answers 404.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { launchChromium } from './support/browser.js';
import { consoleSignIn } from './support/console-page.js';
import { type SignedUpUser, startTestServer, TEST_PASSWORD, type TestServer } from './support/test-server.js';

let server: TestServer;
let browser: Browser;
let page: Page;
let root: SignedUpUser;
let notFound: string[];

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchChromium()]);
  root = await server.signUp('root@status-page.test', 'Rita Root');
  await server.db.sql`insert into public.super_admins (user_id) values (${root.id})`;
  const [{ id: auction }] = await server.db.sql`
    insert into public.auctions (name, slug) values ('Harbour Cars', 'harbour-cars') returning id`;
  const [{ id: live }] = await server.db.sql`
    insert into public.webhook_endpoints (auction_id, url, events, secret)
    values (${auction}, 'https://live.invalid/hook', ${['member.joined']}, 'a-signing-secret-of-some-length')
    returning id`;
  await server.db.sql`
    insert into public.webhook_endpoints (auction_id, url, events, secret, is_active, disabled_reason)
    values (${auction}, 'https://a-rather-long-receiver-name.gone.invalid/hooks/auction-events', ${['member.joined']},
      'a-signing-secret-of-some-length', false, 'receiver gone')`;
  // Due for 3 min 20 s and leased by a dispatcher elsewhere, so it stays in the backlog.
  await server.db.sql`
    insert into public.webhook_deliveries (endpoint_id, auction_id, event_type, payload, next_attempt_at, locked_by,
      locked_until)
    values (${live}, ${auction}, 'member.joined', ${server.db.sql.json({})}, now() - interval '200 seconds',
      'another-process', now() + interval '1 hour')`;
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

beforeEach(async () => {
  await page?.close();
  page = await browser.newPage();
  notFound = [];
  page.on('response', (response) => {
    if (response.status() === 404) notFound.push(response.url());
  });
});

async function openStatus(width: number): Promise<void> {
  await page.setViewportSize({ width, height: 844 });
  await consoleSignIn(page, server.url, root.email, TEST_PASSWORD);
  await page.waitForSelector('body[data-ready="status"]');
}

const verdictOf = (name: string) =>
  page.getByRole('region', { name, exact: true }).locator('.verdict').first().textContent();

/** Elements of the page whose right edge passes the viewport, outside the boxes that scroll on purpose. */
// Strings, not functions: the tests' TypeScript has no DOM types.
const overflowing = () =>
  page.evaluate<string[]>(`[...document.querySelectorAll('body *')]
    .filter((el) => !el.closest('.table-wrap')
      && el.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
    .map((el) => el.tagName.toLowerCase() + '.' + el.className + ': ' + el.textContent.slice(0, 40))`);

it('shows each part with its state and reason, numbers for people, and no request answers 404', async () => {
  await openStatus(1280);
  expect(await verdictOf('Backups and WAL archiving')).toBe(
    'off off: BACKUP_TARGET is not set, so no backups are taken',
  );
  expect(await verdictOf('Webhooks')).toMatch(
    /^warning 1 delivery due, the oldest for 3 min [23]\d s; 1 endpoint disabled$/,
  );
  const webhooks = page.getByRole('region', { name: 'Webhooks' });
  expect(await webhooks.getByRole('list', { name: 'Disabled endpoints' }).textContent()).toMatch(
    /^https:\/\/a-rather-long-receiver-name\.gone\.invalid\/hooks\/auction-events \(Harbour Cars\): receiver gone, disabled (now|\d+ seconds? ago)$/,
  );
  expect(await verdictOf('Database')).toMatch(/^ok up, \d+ of \d+ connections$/);
  expect(await verdictOf('Disk')).toMatch(/^(ok|warning|failing) \d+(\.\d)? [KMGT]?B free of /);
  expect(await page.getByRole('region', { name: 'Disk' }).locator('dl').textContent()).toMatch(
    /free\d+(\.\d)? [KMGT]?B \(\d+\.\d %\)size\d+(\.\d)? [KMGT]?Bfree-space floor\d+(\.\d)? [KMGT]?Buploads(accepted|refused \(507\) until space is freed)refused since startnone$/,
  );
  expect(await verdictOf('Read replicas')).toBe('off none configured');
  // The worst part decides the page's own line: the webhooks' warning, or the disk's state if worse.
  expect(await page.locator('.overall').textContent()).toMatch(/^(warning|failing) \d parts? needs? a look\.$/);
  expect(await page.getByRole('region', { name: 'Server' }).locator('dd').nth(3).textContent()).toMatch(
    /^\d+ (s|min)( \d+ s)?$/,
  );
  expect(await page.getByRole('region', { name: 'Database' }).locator('dl').textContent()).toMatch(/size\d+\.\d MB/);
  expect(notFound).toEqual([]);
  // Headless Chromium asks for no favicon, so a missing one would not show above: the page names its own, and it
  // loads under the page's Content-Security-Policy (a browser with tabs then asks for no /favicon.ico).
  const icon = await page.locator('link[rel="icon"]').getAttribute('href', { timeout: 2000 });
  expect(icon).toBeTruthy();
  const loads = `new Promise((done) => {
    const image = new Image();
    image.onload = () => done(true);
    image.onerror = () => done(false);
    image.src = ${JSON.stringify(icon)};
  })`;
  expect(await page.evaluate<boolean>(loads)).toBe(true);
  if (process.env.CONSOLE_SCREENSHOTS_DIR)
    await page.screenshot({ path: `${process.env.CONSOLE_SCREENSHOTS_DIR}/status.png`, fullPage: true });
});

it('fits 390 px: nothing sticks out of the viewport, the parts follow each other without gaps, and no 404', async () => {
  await openStatus(390);
  const { scrollWidth, clientWidth } = await page.evaluate<{ scrollWidth: number; clientWidth: number }>(
    '({ scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth })',
  );
  expect(clientWidth).toBe(390);
  expect(scrollWidth).toBeLessThanOrEqual(clientWidth);
  expect(await overflowing()).toEqual([]);
  // The title comes right under the header and navigation, not after an empty stretch of screen.
  const gap = await page.evaluate<number>(
    "document.querySelector('h1').getBoundingClientRect().top - document.querySelector('nav').getBoundingClientRect().bottom",
  );
  expect(gap).toBeLessThan(48);
  expect(await verdictOf('Webhooks')).toMatch(/^warning /);
  expect(notFound).toEqual([]);
  if (process.env.CONSOLE_SCREENSHOTS_DIR)
    await page.screenshot({ path: `${process.env.CONSOLE_SCREENSHOTS_DIR}/status-phone.png`, fullPage: true });
});
