// The browser-test pipeline itself: Chromium loads a page from a real server and reads its answer, so a broken
// launcher or a missing browser fails here, before any page-level test depends on it.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium } from './support/browser.js';
import { startTestServer, type TestServer } from './support/test-server.js';

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchChromium()]);
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

it('loads the server health document in Chromium', async () => {
  const page = await browser.newPage();
  const response = await page.goto(`${server.url}/health`);
  expect(response?.status()).toBe(200);
  expect(JSON.parse((await page.locator('body').textContent()) ?? '')).toMatchObject({ status: 'ok', database: 'up' });
});
