// The console's Pending deletion page in Chromium: a deleted auction listed with who deleted it and when it will
// be purged; Undo brings it back; Purge now only after its confirmation (Cancel leaves it), then the server's
// purge job removes it.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium } from './support/browser.js';
import { consoleSignIn, openConsolePage } from './support/console-page.js';
import { startTestServer, TEST_PASSWORD, type SignedUpUser, type TestServer } from './support/test-server.js';

let server: TestServer;
let browser: Browser;
let page: Page;
let owner: SignedUpUser;

async function deletedAuction(slug: string): Promise<string> {
  const { data, error } = await owner.client.from('auctions').insert({ name: slug, slug }).select('id').single();
  if (error) throw error;
  const del = await owner.client.from('auctions').delete().eq('id', data.id);
  if (del.error) throw del.error;
  return data.id as string;
}

async function until(what: string, probe: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchChromium()]);
  owner = await server.signUp('owner@deleted.test', 'Olive Owner');
  const root = await server.signUp('root@deleted.test', 'Rita Root');
  await server.db.sql`insert into public.super_admins (user_id) values (${root.id})`;
  page = await browser.newPage();
  await consoleSignIn(page, server.url, 'root@deleted.test', TEST_PASSWORD);
  await page.waitForSelector('body[data-ready="status"]');
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

it('lists a deleted auction with who and when, and Undo restores it', async () => {
  const id = await deletedAuction('undo-me');
  await page.goto('about:blank');
  await openConsolePage(page, server.url, 'deleted-auctions');
  const row = page.getByRole('row', { name: /undo-me/ });
  await expect(row.getByRole('cell', { name: 'Olive Owner' }).count()).resolves.toBe(1);
  await page.getByRole('button', { name: 'Undo the deletion of undo-me' }).click();
  await page.getByRole('status').filter({ hasText: 'undo-me restored' }).waitFor();
  const [a] = await server.db.sql`select deleted_at from public.auctions where id = ${id}`;
  expect(a!.deleted_at).toBeNull();
});

it('purges now only after the confirmation', async () => {
  const id = await deletedAuction('purge-me');
  await page.goto('about:blank');
  await openConsolePage(page, server.url, 'deleted-auctions');
  await page.getByRole('button', { name: 'Purge purge-me now' }).click();
  await page.getByRole('button', { name: 'Cancel purge of purge-me' }).click();
  const [still] = await server.db.sql`select purge_after > now() as later from public.auctions where id = ${id}`;
  expect(still!.later).toBe(true);
  await page.getByRole('button', { name: 'Purge purge-me now' }).click();
  await page.getByRole('button', { name: 'Confirm purge of purge-me' }).click();
  await page.getByRole('status').filter({ hasText: 'Purge of purge-me started' }).waitFor();
  await until(
    'the purge',
    async () => (await server.db.sql`select 1 from public.auctions where id = ${id}`).length === 0,
  );
});
