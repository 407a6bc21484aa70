// The console's webhook repairs in Chromium against a real server and a real receiver on loopback that fails, then
// answers 410 Gone, then succeeds: Retry now, when and why an endpoint was disabled, a refusal with its hint,
// re-enable, replay every failed delivery, edit URL and events, a test delivery, a phone's width, and a user who is
// not a super admin refused. The tests run in order and share the endpoint.
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
let auctionId: string;
let endpointId: string;
let receiver: LoopbackServer;
let url: string;

/** What the receiver answers now, and every request it got (delivery id, path, what it answered). */
let answer: 500 | 410 | 200 = 500;
const received: { id: string; path: string; status: number }[] = [];

beforeAll(async () => {
  receiver = await startLoopbackServer((req, _body, res) => {
    received.push({ id: String(req.headers['webhook-id']), path: req.url ?? '', status: answer });
    res.writeHead(answer).end(answer === 200 ? 'ok' : 'receiver says no');
  });
  url = `${receiver.url}/hook`;
  [server, browser] = await Promise.all([
    startTestServer({
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8',
      // A failed first attempt waits an hour for the second: only Retry now sends it within the test.
      WEBHOOK_RETRY_SCHEDULE: '0,3600',
      WEBHOOK_JITTER: '0',
      WEBHOOK_POLL_INTERVAL_MS: '200',
    }),
    launchChromium(),
  ]);
  root = await server.signUp('root@hooks.test', 'Rita Root');
  mia = await server.signUp('mia@hooks.test', 'Mia Member');
  await server.db.sql`insert into public.super_admins (user_id) values (${root.id})`;
  [{ id: auctionId }] = await server.db.sql`
    insert into public.auctions (name, slug) values ('Harbour Cars', 'harbour-cars') returning id`;
  const { data, error } = await root.client
    .from('webhook_endpoints')
    .insert({ auction_id: auctionId, url, events: ['message.created'], secret: 'a-signing-secret-of-some-length' })
    .select('id')
    .single();
  expect(error).toBeNull();
  endpointId = data!.id;
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await receiver?.close();
});

beforeEach(async () => {
  await page?.close();
  page = await browser.newPage();
  // Fail within the test's time with the action that waited, not as a timeout of the whole test.
  page.setDefaultTimeout(10_000);
  await consoleSignIn(page, server.url, root.email, TEST_PASSWORD);
  await page.waitForSelector('body[data-ready="status"]');
});

/** The webhooks page, fresh, with the endpoint's panel open (the hash keeps the selection). */
async function openEndpoint(): Promise<void> {
  await page.goto('about:blank');
  await openConsolePage(page, server.url, 'webhooks', `?endpoint=${endpointId}`);
}

async function emit(): Promise<void> {
  await server.db.sql`select domain.emit_event(${auctionId}, 'message.created', '{}'::jsonb)`;
}

async function deliveries() {
  return server.db.sql`select id, status, attempt_count, next_attempt_at, locked_until, is_test
    from public.webhook_deliveries where endpoint_id = ${endpointId} order by created_at`;
}

const feedback = () => page.locator('.feedback');
const log = () => page.getByRole('table', { name: /^Deliveries to / });

it('Retry now sends a queued delivery at once instead of an hour later', async () => {
  answer = 500;
  await emit();
  await until(async () => {
    const [d] = await deliveries();
    return d?.attempt_count === 1 && d.status === 'queued' && d.locked_until === null;
  }, 'the first attempt to fail and be rescheduled');
  const [queued] = await deliveries();
  expect(new Date(queued.next_attempt_at).getTime()).toBeGreaterThan(Date.now() + 30 * 60_000);

  await openEndpoint();
  expect(await log().locator('tbody tr').first().innerText()).toMatch(
    /Retry message\.created delivery now\s+.+\s+event\s+message\.created\s+1\s+queued\s+500 receiver says no/,
  );
  answer = 200;
  await page.getByRole('button', { name: 'Retry message.created delivery now' }).click();
  await expect.poll(() => feedback().innerText()).toContain(`Delivery ${queued.id} is due now`);
  await until(() => received.some((r) => r.id === queued.id && r.status === 200), 'the retried delivery');
  await until(async () => (await deliveries())[0].status === 'delivered', 'the retry to be recorded');

  // A delivered one cannot be retried: the server says so and what to do instead.
  const { error } = await root.client.rpc('retry_webhook_delivery_now', { delivery_id: queued.id });
  expect(error?.message).toBe('webhook delivery is not queued (it is delivered)');
  expect(error?.hint).toBe('replay_webhook_delivery sends a delivered or failed one again');

  await page.getByRole('button', { name: `Deliveries to ${url}` }).click();
  await expect.poll(() => log().locator('tbody tr').first().innerText()).toMatch(/message\.created\s+2\s+delivered/);
});

it('a disabled endpoint shows when and why; Replay is refused with the hint; re-enable, then replay all failed', async () => {
  answer = 410;
  await emit();
  await emit();
  await until(async () => {
    const [e] = await server.db.sql`select is_active from public.webhook_endpoints where id = ${endpointId}`;
    const ds = await deliveries();
    return !e.is_active && ds.every((d) => d.status !== 'queued' && d.locked_until === null);
  }, 'the endpoint to be disabled by 410 Gone');
  const failed = (await deliveries()).filter((d) => d.status === 'failed').map((d) => d.id as string);
  expect(failed).toHaveLength(2);
  const [disabled] = await server.db.sql`select disabled_at from public.webhook_endpoints where id = ${endpointId}`;

  await openEndpoint();
  const row = await page.getByRole('table', { name: '1 endpoint' }).locator('tbody tr').first().innerText();
  expect(row).toContain(
    `no: disabled ${await page.evaluate((at) => new Date(at).toLocaleString(), disabled.disabled_at.toISOString())}`,
  );
  expect(row).toContain('(endpoint answered 410 Gone)');
  const details = await page
    .getByRole('region', { name: `Endpoint ${url}` })
    .locator('dl')
    .innerText();
  expect(details).toMatch(/Active\s+no\s+Disabled at\s+\S.+\s+Why\s+endpoint answered 410 Gone/);

  await page.getByRole('button', { name: 'Replay message.created delivery' }).first().click();
  await expect
    .poll(() => page.getByRole('alert').innerText())
    .toBe('webhook endpoint is disabled. Hint: set is_active to true first');
  await page.getByRole('button', { name: `Replay every failed delivery to ${url}` }).click();
  await expect
    .poll(() => feedback().innerText())
    .toBe('webhook endpoint is disabled. Hint: set is_active to true first');
  expect((await deliveries()).filter((d) => d.status === 'failed')).toHaveLength(2);

  await page.getByRole('button', { name: `Re-enable ${url}` }).click();
  await expect.poll(() => feedback().innerText()).toBe(`${url} is active again; its failure count is back to 0.`);
  await expect
    .poll(() => page.getByRole('table', { name: '1 endpoint' }).locator('tbody tr').first().innerText())
    .toMatch(/message\.created\s+yes\s+0/);
  expect(await page.getByRole('button', { name: `Re-enable ${url}` }).count()).toBe(0);
  const [e] = await server.db.sql`select is_active, disabled_at, disabled_reason
    from public.webhook_endpoints where id = ${endpointId}`;
  expect(e).toEqual({ is_active: true, disabled_at: null, disabled_reason: null });

  answer = 200;
  await page.getByRole('button', { name: `Replay every failed delivery to ${url}` }).click();
  await expect.poll(() => feedback().innerText()).toBe(`2 failed deliveries to ${url} queued again.`);
  await until(
    () => failed.every((id) => received.some((r) => r.id === id && r.status === 200)),
    'both failed deliveries replayed',
  );
  await until(async () => (await deliveries()).every((d) => d.status === 'delivered'), 'the replays recorded');
});

it('edits URL and events, showing the server’s refusal of a bad URL or an unknown event', async () => {
  await openEndpoint();
  const form = page.getByRole('form', { name: `Edit ${url}` });
  const save = async (newUrl: string, events: string) => {
    await form.getByLabel('URL').fill(newUrl);
    await form.getByLabel('Events (comma-separated)').fill(events);
    await form.getByRole('button', { name: 'Save changes' }).click();
  };

  await save('ftp://example.com/hook', 'message.created');
  await expect
    .poll(() => page.getByRole('alert').innerText())
    .toBe('webhook url must be an absolute http(s) URL without credentials');
  await save('http://user:secret@127.0.0.1/hook', 'message.created');
  await expect
    .poll(() => page.getByRole('alert').innerText())
    .toBe('webhook url must be an absolute http(s) URL without credentials');
  await save(url, 'message.created, lot.sold');
  await expect
    .poll(() => page.getByRole('alert').innerText())
    .toMatch(/^unknown webhook event type: lot\.sold\. Hint: known types: .*message\.created/);
  const [unchanged] = await server.db.sql`select url, events from public.webhook_endpoints where id = ${endpointId}`;
  expect(unchanged).toEqual({ url, events: ['message.created'] });

  const moved = `${receiver.url}/moved`;
  await save(moved, 'message.created member.joined');
  await expect.poll(() => feedback().innerText()).toBe(`Saved: ${moved}, events message.created, member.joined.`);
  const [changed] = await server.db.sql`select url, events from public.webhook_endpoints where id = ${endpointId}`;
  expect(changed).toEqual({ url: moved, events: ['member.joined', 'message.created'] });
  await expect
    .poll(() => page.getByRole('table', { name: '1 endpoint' }).locator('tbody tr').first().innerText())
    .toContain(`${moved}\tmember.joined, message.created`);
  expect(await page.getByRole('heading', { level: 2 }).innerText()).toBe(moved);
  url = moved;
});

it('sends a test delivery to the endpoint and marks it as a test in the log', async () => {
  await openEndpoint();
  const before = received.length;
  await page.getByRole('button', { name: 'Send a test member.joined delivery' }).click();
  await expect.poll(() => feedback().innerText()).toMatch(/^Test member\.joined delivery [0-9a-f-]{36} queued\.$/);
  const id = (await feedback().innerText()).split(' ')[3];
  await until(() => received.slice(before).some((r) => r.id === id && r.path === '/moved'), 'the test delivery');
  const [test] = await server.db.sql`select is_test from public.webhook_deliveries where id = ${id}`;
  expect(test.is_test).toBe(true);
  await until(async () => {
    const [d] = await server.db.sql`select status from public.webhook_deliveries where id = ${id}`;
    return d.status === 'delivered';
  }, 'the test delivery recorded');
  await page.getByRole('button', { name: `Deliveries to ${url}` }).click();
  await expect
    .poll(() => log().locator('tbody tr').first().innerText())
    .toMatch(/Replay member\.joined delivery\s+.+\s+test\s+member\.joined\s+1\s+delivered\s+200 ok/);
  // The events the endpoint got from the auction are not marked.
  expect(await log().locator('tbody tr').last().innerText()).toMatch(/\sevent\s+message\.created\s/);
});

it('fits a phone’s width: every action of the page is on screen', async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  await openEndpoint();
  expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
  const controls = page.locator('main button, main input');
  const count = await controls.count();
  expect(count).toBeGreaterThan(5);
  for (let i = 0; i < count; i++) {
    const box = await controls.nth(i).boundingBox();
    const name = await controls.nth(i).evaluate((el) => el.textContent || el.getAttribute('name'));
    expect(box, String(name)).not.toBeNull();
    expect(box!.x, String(name)).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width, String(name)).toBeLessThanOrEqual(390);
  }
});

it('refuses a user who is not a super admin, in the console and in the repairs', async () => {
  await page.close();
  page = await browser.newPage();
  await consoleSignIn(page, server.url, mia.email, TEST_PASSWORD);
  await expect
    .poll(() => page.getByRole('alert').innerText())
    .toBe(`${mia.email} is not a super admin: this console is for the server's operators only.`);

  const [d] = await deliveries();
  const retry = await mia.client.rpc('retry_webhook_delivery_now', { delivery_id: d.id });
  expect(retry.error?.code).toBe('P0002');
  const all = await mia.client.rpc('replay_failed_webhook_deliveries', {
    endpoint_id: endpointId,
    since: '1970-01-01T00:00:00Z',
  });
  expect(all.error?.code).toBe('P0002');
  const update = await mia.client
    .from('webhook_endpoints')
    .update({ url: 'https://evil.example/' })
    .eq('id', endpointId)
    .select('id');
  expect(update.data ?? []).toEqual([]);
  const anon = await server.client().rpc('retry_webhook_delivery_now', { delivery_id: d.id });
  expect(anon.error).not.toBeNull();
  const [e] = await server.db.sql`select url from public.webhook_endpoints where id = ${endpointId}`;
  expect(e.url).toBe(url);
});
