// Several instances on one database (docs/scaling.md): two servers sharing DATABASE_URL, JWT_SECRET, S3 storage and
// the Postgres limiter store behave as one service. A session started on one is used on the other, refresh-token
// rotation and reuse detection hold across them, webhooks and overdue reminders go out once though both run the
// workers, rate limits count requests on both, and stored objects are visible on both.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arrangeOverdueLocation } from './functions-notify.fixture.js';
import type { TestServer } from './support/test-server.js';
import { startTwoServers, type TwoServers } from './support/two-servers.js';
import { awaitWindowRoom } from './support/rate-windows.js';

let twins: TwoServers;
beforeAll(async () => {
  twins = await startTwoServers();
});
afterAll(async () => {
  await twins?.stop();
});

async function until(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 30_000) {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function signUp(server: TestServer, email: string) {
  const { data, error } = await server.client().auth.signUp({ email, password: 'correct-horse-battery-9' });
  expect(error).toBeNull();
  return data.session!;
}

describe('sessions across instances', () => {
  it('a session from A works on B, and signing out on B ends it on A', async () => {
    const { a, b } = twins;
    await signUp(a, 'cross@two.test');
    const signIn = await a.client().auth.signInWithPassword({
      email: 'cross@two.test',
      password: 'correct-horse-battery-9',
    });
    expect(signIn.error).toBeNull();
    const session = signIn.data.session!;

    const onB = b.client(session.access_token);
    const user = await onB.auth.getUser(session.access_token);
    expect(user.error).toBeNull();
    expect(user.data.user!.id).toBe(session.user.id);
    // Data written on B under the session is read back on A under the same session (RLS on both).
    const created = await onB.from('auctions').insert({ name: 'Cross Auction', slug: 'cross-auction' }).select('id');
    expect(created.error).toBeNull();
    const onA = a.client(session.access_token);
    const read = await onA.from('auctions').select('id, name');
    expect(read.data).toEqual([{ id: created.data![0].id, name: 'Cross Auction' }]);

    // Sign-out on B revokes the session's refresh tokens for A too.
    const out = await fetch(`${b.url}/auth/v1/logout`, {
      method: 'POST',
      headers: { apikey: b.anonKey, authorization: `Bearer ${session.access_token}` },
    });
    expect(out.status).toBe(204);
    const refresh = await a.client().auth.refreshSession({ refresh_token: session.refresh_token });
    expect(refresh.error).toMatchObject({ status: 400, code: 'invalid_grant' });
  });

  it('rotation on A holds on B: reuse in the window gets the same rotation, later reuse ends the session', async () => {
    const { a, b, db } = twins;
    const first = (await signUp(a, 'rotate@two.test')).refresh_token;
    const onA = await a.client().auth.refreshSession({ refresh_token: first });
    expect(onA.error).toBeNull();
    const second = onA.data.session!.refresh_token;
    expect(second).not.toBe(first);
    // Within the reuse window B hands out the rotation A made, not a second one.
    const sameOnB = await b.client().auth.refreshSession({ refresh_token: first });
    expect(sameOnB.error).toBeNull();
    expect(sameOnB.data.session!.refresh_token).toBe(second);

    // Past the window (the rotation moved back a minute instead of waiting): B refuses the old token and ends the
    // session, so A refuses the newest token as well.
    await db.sql`update auth.refresh_tokens set revoked_at = now() - interval '1 minute' where revoked_at is not null`;
    const late = await b.client().auth.refreshSession({ refresh_token: first });
    expect(late.error).toMatchObject({ status: 400, code: 'invalid_grant' });
    const after = await a.client().auth.refreshSession({ refresh_token: second });
    expect(after.error).toMatchObject({ status: 400, code: 'invalid_grant' });
  });
});

describe('background work runs once', () => {
  it('delivers each webhook once although both dispatchers run', async () => {
    const { db } = twins;
    const received: string[] = [];
    const receiver = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received.push(String(req.headers['x-webhook-id']));
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const [auction] = await db.sql`insert into public.auctions (name, slug) values ('Hooks', 'hooks') returning id`;
      await db.sql`insert into public.webhook_endpoints (auction_id, url, events, secret)
        values (${auction.id}, ${url}, ${['message.created']}, 'two-servers-secret-0123456789')`;
      await db.sql`select domain.emit_event(${auction.id}, 'message.created', jsonb_build_object('n', g))
                     from generate_series(1, 40) g`;
      const delivered = async () =>
        (await db.sql`select count(*)::int as n from public.webhook_deliveries where status = 'delivered'`)[0].n;
      await until(async () => (await delivered()) === 40, 'all 40 delivered');
      // Both dispatchers keep polling; give them a few more turns to show no delivery is sent again.
      await new Promise((r) => setTimeout(r, 1000));
      const ids = (await db.sql`select id from public.webhook_deliveries`).map((d) => d.id as string);
      expect([...received].sort()).toEqual(ids.sort());
      const attempts = await db.sql`select count(*)::int as n from public.webhook_deliveries where attempt_count <> 1`;
      expect(attempts[0].n).toBe(0);
    } finally {
      receiver.closeAllConnections();
      await new Promise((r) => receiver.close(r));
    }
  });

  it('sends the overdue reminder once although both schedulers fire', async () => {
    const { db, expo } = twins;
    await arrangeOverdueLocation(db, {
      email: 'owner@pending.two.test',
      slug: 'pending',
      pushToken: 'ExponentPushToken[pat]',
      location: 'North Lot',
    });
    const reminders = () => expo.delivered().filter((m) => m.data?.type === 'pending_submissions');
    await until(() => reminders().length > 0, 'a scheduled run');
    // Both schedulers fire every 3 s: after two more rounds there is still one reminder.
    await new Promise((r) => setTimeout(r, 6500));
    expect(reminders().map((m) => [m.to, m.title])).toEqual([
      ['ExponentPushToken[pat]', 'North Lot is due for a count'],
    ]);
  });
});

describe('shared state', () => {
  it('counts requests on both instances against one per-address limit', async () => {
    const { a, b } = twins;
    // A signed-in user without auctions is on the free tier, like anonymous callers (who may read nothing here).
    const token = (await signUp(b, 'limits@two.test')).access_token;
    // The minute window is fixed: start with enough of it left that 61 requests cannot straddle two windows.
    await awaitWindowRoom(60_000);
    const call = (server: TestServer) =>
      fetch(`${server.url}/rest/v1/auctions?select=id`, {
        headers: { apikey: server.anonKey, authorization: `Bearer ${token}`, 'x-forwarded-for': '10.9.0.1' },
      });
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) statuses.push((await call(i % 2 ? a : b)).status);
    expect(statuses).toEqual(Array(60).fill(200));
    for (const server of [a, b]) {
      const refused = await call(server);
      expect(refused.status).toBe(429);
      expect(await refused.json()).toMatchObject({
        code: 'rate_limit_exceeded',
        details: 'limit of 60 requests per minute for this address',
      });
    }
  });

  it('stores an object through A that B lists, serves and removes', async () => {
    const { a, b } = twins;
    const adminA = a.client(a.serviceRoleKey);
    const adminB = b.client(b.serviceRoleKey);
    expect((await adminA.storage.createBucket('shared', { public: false })).error).toBeNull();
    const bytes = new TextEncoder().encode('uploaded on A, read on B');
    const up = await adminA.storage.from('shared').upload('lot/photo.txt', bytes, { contentType: 'text/plain' });
    expect(up.error).toBeNull();

    const listed = await adminB.storage.from('shared').list('lot');
    expect(listed.data?.map((o) => o.name)).toEqual(['photo.txt']);
    const down = await adminB.storage.from('shared').download('lot/photo.txt');
    expect(down.error).toBeNull();
    expect(await down.data!.text()).toBe('uploaded on A, read on B');

    expect((await adminB.storage.from('shared').remove(['lot/photo.txt'])).error).toBeNull();
    const gone = await adminA.storage.from('shared').download('lot/photo.txt');
    expect(gone.error).toMatchObject({ status: 404, message: 'Object not found' });
  });
});
