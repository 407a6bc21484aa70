// The console's backups page in Chromium against a real server process on its own embedded cluster with
// BACKUP_TARGET: none at first, one taken with the button (listed with its size and last WAL segment, and found in
// the target as `backup list` finds it), and the endpoint refused to a signed-in user who is not a super admin.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { listBackups, resolveTarget } from '@auction-ops/backups';
import { findFreePort } from '@auction-ops/database';
import { launchChromium } from './support/browser.js';
import { consoleSignIn, openConsolePage } from './support/console-page.js';
import { serverProcess, TEST_PASSWORD, testClient, type ServerProcess } from './support/test-server.js';

const CLI = fileURLToPath(new URL('../../cli/bin/auction-ops.js', import.meta.url));
let root: string;
let dataDir: string;
let target: string;
let url: string;
let proc: ServerProcess;
let browser: Browser;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'auction-ops-console-backups-'));
  target = join(root, 'target');
  dataDir = join(root, 'data');
  const port = await findFreePort();
  const server = serverProcess({ DATA_DIR: dataDir, BACKUP_TARGET: target, RATE_LIMITS_ENABLED: 'false' }, port);
  [proc, browser] = [server.start(), await launchChromium()];
  const deadline = Date.now() + 90_000;
  while (!(await server.healthy())) {
    if (proc.child.exitCode !== null || Date.now() > deadline) throw new Error(`no server: ${proc.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  url = `http://127.0.0.1:${port}`;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  if (proc?.child.exitCode === null) proc.child.kill('SIGTERM');
  await proc?.exited;
  if (root) rmSync(root, { recursive: true, force: true });
});

/** Signs a user up through the page's own anon key and returns their access token. */
async function signedUp(anonKey: string, email: string): Promise<{ id: string; token: string }> {
  const { data, error } = await testClient(url, anonKey).auth.signUp({ email, password: TEST_PASSWORD });
  if (error) throw error;
  return { id: data.user!.id, token: data.session!.access_token };
}

it('lists none, takes one with the button, lists it; refuses a user who is not a super admin', async () => {
  const page = await browser.newPage();
  await page.goto(`${url}/console`);
  const anonKey = (await page.locator('body').getAttribute('data-anon-key')) ?? '';
  const rita = await signedUp(anonKey, 'rita@backups.test');
  const mia = await signedUp(anonKey, 'mia@backups.test');
  // The first super admin is made as an operator makes one: with the CLI on the server's DATA_DIR.
  const granted = spawnSync(process.execPath, [CLI, 'super-admin', 'grant', 'rita@backups.test'], {
    env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    encoding: 'utf8',
  });
  expect(granted.status, `${granted.stdout}${granted.stderr}`).toBe(0);
  expect(rita.id).toBeTruthy();

  const refused = await fetch(`${url}/console/api/backups`, { headers: { authorization: `Bearer ${mia.token}` } });
  expect(refused.status).toBe(403);

  await consoleSignIn(page, url, 'rita@backups.test', TEST_PASSWORD);
  await openConsolePage(page, url, 'backups');
  expect(await page.getByRole('status').textContent()).toBe('No backups yet.');
  await page.getByRole('button', { name: 'Create a backup now' }).click();
  await page.waitForSelector('table');
  expect(await page.getByRole('status').textContent()).toMatch(/^Backup \S+ created \(\d+\.\d MB\)\.$/);
  const [made] = await listBackups(resolveTarget(target));
  expect(made).toBeDefined();
  expect(await page.locator('tbody tr').first().innerText()).toContain(made!.id);
  expect(await page.locator('caption').textContent()).toBe('1 backup');
  const shots = process.env.CONSOLE_SCREENSHOTS_DIR;
  if (shots) await page.screenshot({ path: join(shots, 'backups.png'), fullPage: true });
}, 180_000);
