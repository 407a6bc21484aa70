// How fast each console page paints its data, by the browser's own clock (Performance API: the page's
// `console-ready:<page>` mark, from navigation start), over the demo seed. CONSOLE_SEED_SCALE sets the seed's
// scale (1 by default, so CI stays quick; the acceptance measurement uses 10); CONSOLE_SCREENSHOTS_DIR, when set,
// receives a PNG of each page (docs/console/ holds the ones docs/console.md shows).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { hashPassword } from '@auction-ops/auth-core';
import { seedDemo } from '@auction-ops/domain';
import { launchChromium } from './support/browser.js';
import { consoleSignIn, openConsolePage, paintTimings } from './support/console-page.js';
import { startTestServer, TEST_PASSWORD, type TestServer } from './support/test-server.js';

const SCALE = Number(process.env.CONSOLE_SEED_SCALE ?? '1');
const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS_DIR;
// The target is 300 ms; the bound asserted leaves room for a loaded CI machine and catches an unbounded page.
const BOUND_MS = 1000;
const PAGES = ['status', 'users', 'auctions', 'webhooks', 'imports', 'outboxes', 'realtime'];

let server: TestServer;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchChromium()]);
  await seedDemo(server.db.sql, { scale: SCALE, hashPassword });
  const root = await server.signUp('root@console.test', 'Rita Root');
  await server.db.sql`insert into public.super_admins (user_id) values (${root.id})`;
  // Two endpoints of the first auction, so the webhooks page has rows to paint.
  const [auction] = await server.db.sql`select id from public.auctions order by name limit 1`;
  for (const host of ['erp', 'crm']) {
    const { error } = await root.client.from('webhook_endpoints').insert({
      auction_id: auction.id,
      url: `https://${host}.example.com/hooks/auction-ops`,
      events: ['submission.created', 'member.joined'],
      secret: 'a-signing-secret-of-some-length',
    });
    if (error) throw new Error(error.message);
  }
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  if (SCREENSHOTS) mkdirSync(SCREENSHOTS, { recursive: true });
  await page.goto(`${server.url}/console`);
  await page.waitForSelector('body[data-ready="sign-in"]');
  if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOTS, 'sign-in.png') });
  await consoleSignIn(page, server.url, root.email, TEST_PASSWORD);
  await page.waitForSelector('body[data-ready="status"]');
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

it(`each page paints its data within ${BOUND_MS} ms (demo seed at scale ${SCALE})`, async () => {
  const report: Record<string, { fcp_ms: number; data_painted_ms: number }> = {};
  for (const id of PAGES) {
    const fcp: number[] = [];
    const ready: number[] = [];
    for (let run = 0; run < 5; run++) {
      // A fresh document each time (about:blank first), as an operator opening the page.
      await page.goto('about:blank');
      await openConsolePage(page, server.url, id);
      const timings = await paintTimings(page, id);
      fcp.push(timings.fcp);
      ready.push(timings.ready);
    }
    report[id] = { fcp_ms: Math.round(median(fcp)), data_painted_ms: Math.round(median(ready)) };
    if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOTS, `${id}.png`), fullPage: true });
  }
  console.log(`console paint timings, demo seed at scale ${SCALE} (median of 5):`, JSON.stringify(report, null, 1));
  for (const id of PAGES) expect(report[id].data_painted_ms, id).toBeLessThan(BOUND_MS);
  if (SCREENSHOTS) {
    await page.setViewportSize({ width: 390, height: 844 });
    await openConsolePage(page, server.url, 'users');
    await page.screenshot({ path: join(SCREENSHOTS, 'users-phone.png'), fullPage: true });
  }
});
