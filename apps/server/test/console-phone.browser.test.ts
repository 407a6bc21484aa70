// Every console page on a phone (390 x 844, issue 56), each with rows in its tables: every visible action in the
// page lies inside the viewport, the document never scrolls sideways, and no blank gap over 40 px separates the
// navigation from the page's heading. The backups page's list comes from a routed answer (taking a real backup
// is console-backups.browser.test.ts's job); every other page reads what the test wrote into a real server.
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium } from './support/browser.js';
import { consoleSignIn, openConsolePage } from './support/console-page.js';
import { type SignedUpUser, startTestServer, TEST_PASSWORD, type TestServer } from './support/test-server.js';

const WIDTH = 390;
const LONG_URL = 'https://a-rather-long-receiver-name.example.invalid/hooks/auction-events-of-harbour-cars';

let server: TestServer;
let browser: Browser;
let page: Page;
let root: SignedUpUser;
let endpointId: string;

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchChromium()]);
  root = await server.signUp('root@phone.test', 'Rita Root');
  const owner = await server.signUp('olive.owner.with.a.long.address@phone.test', 'Olive Owner');
  await server.db.sql`insert into public.super_admins (user_id) values (${root.id})`;
  const made = await owner.client
    .from('auctions')
    .insert({ name: 'Harbour Cars', slug: 'harbour-cars' })
    .select('id')
    .single();
  if (made.error) throw made.error;
  const auctionId = made.data.id as string;
  // Pending deletion: an auction its owner deleted.
  const gone = await owner.client.from('auctions').insert({ name: 'Old Yard', slug: 'old-yard' }).select('id').single();
  if (gone.error) throw gone.error;
  const deleted = await owner.client.from('auctions').delete().eq('id', gone.data.id);
  if (deleted.error) throw deleted.error;
  // Webhooks: an endpoint with a failed delivery in its log.
  const endpoint = await root.client
    .from('webhook_endpoints')
    .insert({ auction_id: auctionId, url: LONG_URL, events: ['message.created'], secret: 'a-signing-secret-of-length' })
    .select('id')
    .single();
  if (endpoint.error) throw endpoint.error;
  endpointId = endpoint.data.id as string;
  await server.db.sql`insert into public.webhook_deliveries
      (endpoint_id, auction_id, event_type, payload, status, attempt_count, last_status_code, last_error)
    values (${endpointId}, ${auctionId}, 'message.created', '{}', 'failed', 6, 503,
      'the receiver answered 503 Service Unavailable after a rather long wait')`;
  // CSV imports, push jobs and function mail.
  await server.db.sql`insert into public.datasets (auction_id, name, status, row_count, columns, table_name)
    values (${auctionId}, 'Lot prices 2025', 'ready', 1234, '[{"name":"lot"},{"name":"price"}]', 'ds_lot_prices')`;
  await server.db.sql`insert into notifications.push_jobs (kind, subject_id, auction_id, status, attempts, last_error)
    values ('chat_message', gen_random_uuid(), ${auctionId}, 'failed', 3, 'DeviceNotRegistered from the provider')`;
  await server.db.sql`insert into public.email_log (user_id, to_email, template, status, error)
    values (${owner.id}, ${owner.email}, 'invite', 'failed', 'mail provider answered 503')`;

  page = await browser.newPage({ viewport: { width: WIDTH, height: 844 } });
  page.setDefaultTimeout(15_000);
  await page.route('**/console/api/backups', (route) =>
    route.fulfill({
      json: {
        configured: true,
        backups: [
          {
            id: '20261206T101500Z-base',
            started_at: '2026-12-06T10:15:00Z',
            finished_at: '2026-12-06T10:15:09Z',
            bytes: 55_600_000,
            stop_wal: '000000010000000000000003',
          },
        ],
      },
    }),
  );
  await consoleSignIn(page, server.url, root.email, TEST_PASSWORD);
  await page.waitForSelector('body[data-ready="status"]');
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

interface Layout {
  scrollWidth: number;
  /** From the bottom of the navigation's last link to the top of the page's heading. */
  gap: number;
  /** Visible buttons and links of the main content, with their horizontal extent. */
  actions: { name: string; left: number; right: number }[];
}

// A string, not a function: the tests' TypeScript has no DOM types.
const measure = () =>
  page.evaluate<Layout>(`(() => {
    const links = [...document.querySelectorAll('nav a')].map((a) => a.getBoundingClientRect().bottom);
    const heading = document.querySelector('main h1').getBoundingClientRect().top;
    const actions = [...document.querySelectorAll('main button, main a[href], main [role="button"]')]
      .map((el) => ({ el, box: el.getBoundingClientRect() }))
      .filter(({ box }) => box.width > 0 && box.height > 0)
      .map(({ el, box }) => ({
        name: el.getAttribute('aria-label') || el.textContent.trim(),
        left: box.left,
        right: box.right,
      }));
    return {
      scrollWidth: document.documentElement.scrollWidth,
      gap: heading - Math.max(...links),
      actions,
    };
  })()`);

/** Each page, and what must be on it (so that an empty table cannot pass for a fitting one). */
const PAGES: { id: string; query?: string; expected: string[]; open?: () => Promise<void> }[] = [
  { id: 'status', expected: [] },
  { id: 'users', expected: ['Ban olive.owner.with.a.long.address@phone.test'] },
  {
    id: 'auctions',
    expected: ['1 members of Harbour Cars', 'Download Harbour Cars'],
    open: async () => {
      await page.getByRole('button', { name: '1 members of Harbour Cars' }).click();
      await page.getByRole('table', { name: 'Members of Harbour Cars' }).waitFor();
    },
  },
  { id: 'deleted-auctions', expected: ['Undo the deletion of Old Yard', 'Purge Old Yard now'] },
  {
    id: 'webhooks',
    query: '?endpoint=',
    expected: [`Deliveries to ${LONG_URL}`, 'Replay message.created delivery'],
  },
  { id: 'imports', expected: [] },
  { id: 'outboxes', expected: [] },
  { id: 'realtime', expected: [] },
  { id: 'backups', expected: ['Create a backup now'] },
];

for (const { id, query, expected, open } of PAGES) {
  it(`${id}: at ${WIDTH} px every action is on screen, nothing scrolls sideways, no gap under the navigation`, async () => {
    await page.goto('about:blank');
    await openConsolePage(page, server.url, id, query === '?endpoint=' ? `${query}${endpointId}` : (query ?? ''));
    await open?.();
    if (id !== 'status' && id !== 'realtime') expect(await page.locator('main tbody tr').count()).toBeGreaterThan(0);
    const layout = await measure();
    const names = layout.actions.map((a) => a.name);
    for (const name of expected) expect(names).toContain(name);
    const outside = layout.actions.filter((a) => a.left < 0 || a.right > WIDTH + 0.5);
    expect(outside, 'actions outside the viewport').toEqual([]);
    expect(layout.scrollWidth).toBeLessThanOrEqual(WIDTH);
    expect(layout.gap, 'blank px between the navigation and the heading').toBeLessThanOrEqual(40);
    const shots = process.env.CONSOLE_SCREENSHOTS_DIR;
    if (shots) await page.screenshot({ path: join(shots, `phone-${id}.png`), fullPage: true });
  });
}
