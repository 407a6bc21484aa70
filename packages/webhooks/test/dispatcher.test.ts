// The dispatcher against real receivers on loopback, with a retry schedule of seconds: signatures and headers,
// retries and giving up, recovery, 410 and consecutive-failure disabling, redirects, Retry-After, the SSRF guard,
// isolation of a hanging endpoint, a crash mid-delivery, and two dispatchers sharing the queue.
import { createHmac, timingSafeEqual } from 'node:crypto';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import postgres from 'postgres';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { authMigrations } from '@auction-ops/auth-core';
import { domainMigrations } from '@auction-ops/domain';
import {
  createDispatcher,
  parseCidrList,
  webhookMigrations,
  type Dispatcher,
  type DispatcherOptions,
} from '../src/index.js';
import { TEST_CERT, TEST_KEY } from './fixtures/tls.js';
import {
  createAuction,
  createEndpoint,
  emit,
  startReceiver,
  waitUntil,
  type Auction,
  type Receiver,
} from './helpers.js';

let db: TestDatabase;
let sql: postgres.Sql;
let a: Auction;
const running: Dispatcher[] = [];
const receivers: Receiver[] = [];
const quiet = { debug() {}, info() {}, warn() {}, error() {} };

function dispatcher(overrides: Partial<DispatcherOptions> = {}): Dispatcher {
  const d = createDispatcher({
    sql,
    log: quiet,
    concurrency: 8,
    perEndpointConcurrency: 2,
    policy: { schedule: [0, 1, 1, 1, 1, 1], jitter: 0, retryAfterMaxSeconds: 3 },
    timeoutMs: 5000,
    disableAfterFailures: 5,
    allowHttp: true,
    allowedCidrs: parseCidrList('127.0.0.0/8'),
    pollIntervalMs: 200,
    logRetentionDays: 30,
    stopGraceMs: 200,
    ...overrides,
  });
  running.push(d);
  return d;
}

/** Holds an exclusive lock on the delivery table until release(): claims hang (or time out) meanwhile. */
function lockDeliveries() {
  const blocker = postgres(db.ownerUrl, { max: 1, onnotice: () => {} });
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const locking = blocker.begin(async (tx) => {
    await tx`lock table public.webhook_deliveries in access exclusive mode`;
    await held;
  });
  return { release, locking, blocker };
}

async function receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
  const r = await startReceiver(...args);
  receivers.push(r);
  return r;
}

const delivery = async (eventId: string) =>
  (await db.sql`select * from public.webhook_deliveries where event_id = ${eventId}`)[0];
const attempts = (deliveryId: string) =>
  db.sql`select * from public.webhook_delivery_attempts where delivery_id = ${deliveryId} order by attempt`;

beforeAll(async () => {
  db = await createTestDatabase([authMigrations, domainMigrations, webhookMigrations]);
  sql = postgres(db.ownerUrl, { max: 6, onnotice: () => {} });
  await db.sql`update webhooks.settings set allow_http = true`;
});
beforeEach(async () => {
  a = await createAuction(db.sql);
});
afterEach(async () => {
  for (const d of running.splice(0)) await d.kill();
  for (const r of receivers.splice(0)) await r.close();
});
afterAll(async () => {
  await sql.end();
  await db.drop();
});

describe('requests', () => {
  it('sends the documented body and headers, signed in both schemes verifiable from the raw body', async () => {
    const r = await receiver();
    const secret = `whsec_${Buffer.from('a-very-secret-key-of-32-bytes!!!').toString('base64')}`;
    await createEndpoint(db.sql, a.id, r.url, { secret, events: ['message.created'] });
    await dispatcher().start();
    const eventId = await emit(db.sql, a.id, 'message.created', { id: 'm1', content: 'héllo' });
    await r.waitFor(1);
    const { headers, body } = r.requests[0];
    const d = await delivery(eventId);
    const [ev] = await db.sql`select occurred_at from public.event_outbox where id = ${eventId}`;
    expect(body).toBe(
      JSON.stringify({
        event: 'message.created',
        timestamp: (ev.occurred_at as Date).toISOString(),
        webhook_id: d.id,
        auction_id: a.id,
        data: { id: 'm1', content: 'héllo' },
      }),
    );
    expect(headers['content-type']).toBe('application/json');
    expect(headers['user-agent']).toBe('auction-ops-Webhook/1.0');
    expect(headers['x-webhook-id']).toBe(d.id);
    expect(headers['x-webhook-event']).toBe('message.created');
    expect(headers['x-webhook-timestamp']).toMatch(/^\d{10}$/);
    expect(Math.abs(Number(headers['x-webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    // X-Webhook-Signature: hex HMAC of the raw body with the secret, compared in constant time.
    const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
    expect(timingSafeEqual(Buffer.from(String(headers['x-webhook-signature'])), expected)).toBe(true);
    // Standard Webhooks: base64 HMAC of id.timestamp.body with the base64-decoded whsec_ key.
    expect(headers['webhook-id']).toBe(d.id);
    expect(headers['webhook-timestamp']).toBe(headers['x-webhook-timestamp']);
    const key = Buffer.from(secret.slice(6), 'base64');
    const std = createHmac('sha256', key).update(`${d.id}.${headers['webhook-timestamp']}.${body}`).digest('base64');
    expect(headers['webhook-signature']).toBe(`v1,${std}`);
    await waitUntil(async () => (await delivery(eventId)).status === 'delivered', 5000, 'delivered');
    const [att] = await attempts(d.id);
    expect(att).toMatchObject({
      attempt: 1,
      status: 'success',
      response_status: 200,
      response_body: 'ok',
      event_type: 'message.created',
    });
    expect(att.response_time_ms).toBeGreaterThanOrEqual(0);
  });

  it('signs with both secrets for 24 h after a rotation', async () => {
    const r = await receiver();
    const id = await createEndpoint(db.sql, a.id, r.url, { secret: 'old-secret-0123456789' });
    await db.sql`update public.webhook_endpoints set secret = 'new-secret-0123456789' where id = ${id}`;
    await dispatcher().start();
    await emit(db.sql, a.id);
    await r.waitFor(1);
    const { headers, body } = r.requests[0];
    const sig = (s: string) => `sha256=${createHmac('sha256', s).update(body).digest('hex')}`;
    expect(headers['x-webhook-signature']).toBe(`${sig('new-secret-0123456789')},${sig('old-secret-0123456789')}`);
    expect(String(headers['webhook-signature']).split(' ')).toHaveLength(2);
    await db.sql`update webhooks.endpoint_secrets set previous_secret_expires_at = now() - interval '1 second'
      where endpoint_id = ${id}`;
    await emit(db.sql, a.id);
    await r.waitFor(2);
    const second = r.requests[1];
    expect(second.headers['x-webhook-signature']).toBe(
      `sha256=${createHmac('sha256', 'new-secret-0123456789').update(second.body).digest('hex')}`,
    );
    expect(String(second.headers['webhook-signature']).split(' ')).toHaveLength(1);
  });

  it('delivers over HTTPS with the certificate verified', async () => {
    const received: string[] = [];
    const server = https.createServer({ cert: TEST_CERT, key: TEST_KEY }, (req, res) => {
      req.resume();
      req.on('end', () => {
        received.push(String(req.headers['x-webhook-id']));
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
    try {
      const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      const trusted = await createEndpoint(db.sql, a.id, url, { events: ['member.joined'] });
      await dispatcher({
        allowHttp: false,
        tlsCa: TEST_CERT,
        policy: { schedule: [0], jitter: 0, retryAfterMaxSeconds: 1 },
      }).start();
      const ok = await emit(db.sql, a.id, 'member.joined');
      await waitUntil(async () => (await delivery(ok)).status === 'delivered', 10_000, 'https delivery');
      expect(received).toEqual([(await delivery(ok)).id]);
      for (const d of running.splice(0)) await d.kill();
      // Without the CA the self-signed receiver is not trusted.
      await dispatcher({ allowHttp: false, policy: { schedule: [0], jitter: 0, retryAfterMaxSeconds: 1 } }).start();
      const refused = await emit(db.sql, a.id, 'member.joined');
      await waitUntil(async () => (await delivery(refused)).status === 'failed', 10_000, 'untrusted failure');
      expect((await delivery(refused)).last_error).toMatch(/certificate/);
      expect(received).toHaveLength(1);
      await db.sql`delete from public.webhook_endpoints where id = ${trusted}`;
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('treats a redirect as a failure without following it, and keeps 2 KB of the response body', async () => {
    const target = await receiver();
    const r = await receiver((_q, res, i) => {
      if (i === 0) res.writeHead(302, { location: target.url }).end();
      else res.writeHead(500).end('x'.repeat(5000));
    });
    await createEndpoint(db.sql, a.id, r.url);
    await dispatcher({ policy: { schedule: [0, 0], jitter: 0, retryAfterMaxSeconds: 1 } }).start();
    const eventId = await emit(db.sql, a.id);
    await waitUntil(async () => (await delivery(eventId)).status === 'failed', 10_000, 'failed');
    const list = await attempts((await delivery(eventId)).id);
    expect(list.map((x) => [x.status, x.response_status])).toEqual([
      ['failed', 302],
      ['failed', 500],
    ]);
    expect(list[0].error_message).toMatch(/redirect not followed/);
    expect(list[1].response_body).toHaveLength(2048);
    expect(target.requests).toHaveLength(0);
  });
});

describe('retries', () => {
  it('gives an always-failing receiver exactly 6 attempts at the scheduled gaps, then fails the delivery', async () => {
    const r = await receiver((_q, res) => {
      res.writeHead(503).end('down');
    });
    const id = await createEndpoint(db.sql, a.id, r.url);
    await dispatcher().start();
    const eventId = await emit(db.sql, a.id);
    await waitUntil(async () => (await delivery(eventId)).status === 'failed', 20_000, 'failed');
    const d = await delivery(eventId);
    expect(d).toMatchObject({ attempt_count: 6, last_status_code: 503, last_error: 'HTTP 503' });
    expect(r.requests).toHaveLength(6);
    const list = await attempts(d.id);
    expect(list.map((x) => x.attempt)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(list.every((x) => x.status === 'failed' && x.response_status === 503)).toBe(true);
    for (let i = 1; i < 6; i++) expect(r.requests[i].at - r.requests[i - 1].at).toBeGreaterThanOrEqual(950);
    expect(new Set(r.requests.map((q) => q.headers['x-webhook-id']))).toEqual(new Set([d.id]));
    const [e] = await db.sql`select consecutive_failures, is_active from public.webhook_endpoints where id = ${id}`;
    expect(e).toEqual({ consecutive_failures: 1, is_active: true });
    await new Promise((res) => setTimeout(res, 1300));
    expect(r.requests).toHaveLength(6);
  });

  it('delivers on the next attempt once a receiver recovers, and honours Retry-After', async () => {
    const r = await receiver((_q, res, i) => {
      if (i === 0) res.writeHead(429, { 'retry-after': '2' }).end();
      else if (i === 1) res.writeHead(500).end();
      else res.writeHead(204).end();
    });
    await createEndpoint(db.sql, a.id, r.url);
    await dispatcher({ policy: { schedule: [0, 0, 0, 0], jitter: 0, retryAfterMaxSeconds: 3 } }).start();
    const eventId = await emit(db.sql, a.id);
    await waitUntil(async () => (await delivery(eventId)).status === 'delivered', 15_000, 'delivered');
    const d = await delivery(eventId);
    expect(d.attempt_count).toBe(3);
    expect((await attempts(d.id)).map((x) => x.status)).toEqual(['failed', 'failed', 'success']);
    expect(r.requests[1].at - r.requests[0].at).toBeGreaterThanOrEqual(1950);
  });

  it('disables an endpoint at once on 410 Gone, and after N consecutive failed deliveries', async () => {
    const gone = await receiver((_q, res) => {
      res.writeHead(410).end();
    });
    const goneId = await createEndpoint(db.sql, a.id, gone.url);
    const failing = await receiver((_q, res) => {
      res.writeHead(500).end();
    });
    const failingId = await createEndpoint(db.sql, a.id, failing.url, { events: ['member.joined'] });
    await dispatcher({
      policy: { schedule: [0], jitter: 0, retryAfterMaxSeconds: 1 },
      disableAfterFailures: 2,
    }).start();
    // Both events in one transaction: emitted one after the other, the dispatcher could deliver the first, get the
    // 410 and disable the endpoint before the second was emitted, which then made no delivery to wait for.
    const [e1, e2] = await db.sql.begin(async (tx) => {
      const ids: string[] = [];
      for (const n of [1, 2])
        ids.push((await tx`select domain.emit_event(${a.id}, 'message.created', ${tx.json({ n })}) as id`)[0].id);
      return ids;
    });
    await waitUntil(
      async () =>
        (await db.sql`select is_active from public.webhook_endpoints where id = ${goneId}`)[0].is_active === false,
      10_000,
      '410 disable',
    );
    await waitUntil(
      async () => (await delivery(e1)).status === 'failed' && (await delivery(e2)).status === 'failed',
      10_000,
      'both failed',
    );
    const [g] = await db.sql`select disabled_reason from public.webhook_endpoints where id = ${goneId}`;
    expect(g.disabled_reason).toBe('endpoint answered 410 Gone');
    expect(gone.requests.length).toBeLessThanOrEqual(2);

    await emit(db.sql, a.id, 'member.joined');
    await waitUntil(
      async () =>
        (await db.sql`select consecutive_failures from public.webhook_endpoints where id = ${failingId}`)[0]
          .consecutive_failures === 1,
      10_000,
      'one failure',
    );
    await emit(db.sql, a.id, 'member.joined');
    await waitUntil(
      async () =>
        (await db.sql`select is_active from public.webhook_endpoints where id = ${failingId}`)[0].is_active === false,
      10_000,
      'disabled',
    );
    const [f] =
      await db.sql`select consecutive_failures, disabled_reason from public.webhook_endpoints where id = ${failingId}`;
    expect(f).toEqual({ consecutive_failures: 2, disabled_reason: '2 consecutive deliveries failed' });
    // Disabled: new events make no deliveries; re-enabled: they flow again and the count is reset.
    const skipped = await emit(db.sql, a.id, 'member.joined');
    expect(await delivery(skipped)).toBeUndefined();
    await db.sql`update public.webhook_endpoints set is_active = true where id = ${failingId}`;
    expect(
      (await db.sql`select consecutive_failures from public.webhook_endpoints where id = ${failingId}`)[0]
        .consecutive_failures,
    ).toBe(0);
  });
});

describe('operations', () => {
  it('delivers test_webhook samples and replays failed deliveries with the same webhook_id', async () => {
    let up = false;
    const r = await receiver((_q, res) => {
      res.writeHead(up ? 200 : 500).end();
    });
    const id = await createEndpoint(db.sql, a.id, r.url, { events: ['channel.created'] });
    await dispatcher({ policy: { schedule: [0], jitter: 0, retryAfterMaxSeconds: 1 } }).start();
    const e1 = await emit(db.sql, a.id, 'channel.created');
    const e2 = await emit(db.sql, a.id, 'channel.created');
    await waitUntil(
      async () => (await delivery(e1)).status === 'failed' && (await delivery(e2)).status === 'failed',
      10_000,
      'failed',
    );
    up = true;
    const [res] = await db.sql`select public.replay_failed_webhook_deliveries(${id}, now() - interval '1 hour') as r`;
    expect(res.r.replayed).toBe(2);
    await waitUntil(
      async () => (await delivery(e1)).status === 'delivered' && (await delivery(e2)).status === 'delivered',
      10_000,
      'replayed',
    );
    const d1 = await delivery(e1);
    expect(d1.attempt_count).toBe(2);
    expect(r.requests.filter((q) => q.headers['x-webhook-id'] === d1.id)).toHaveLength(2);
    expect((await attempts(d1.id)).map((x) => [x.attempt, x.status])).toEqual([
      [1, 'failed'],
      [2, 'success'],
    ]);

    const [t] = await db.sql`select public.test_webhook(${id}, 'problem.status_changed') as r`;
    await waitUntil(
      async () => r.requests.some((q) => q.headers['x-webhook-id'] === t.r.delivery_id),
      10_000,
      'test delivery',
    );
    const sample = JSON.parse(r.requests.find((q) => q.headers['x-webhook-id'] === t.r.delivery_id)!.body);
    expect(sample).toMatchObject({ event: 'problem.status_changed', webhook_id: t.r.delivery_id, auction_id: a.id });
    expect(Object.keys(sample.data)).toEqual(expect.arrayContaining(['previous_status', 'new_status', 'assigned_to']));
  });
});

describe('security', () => {
  it('refuses loopback unless a CIDR opens it, by address and by name', async () => {
    const r = await receiver();
    await createEndpoint(db.sql, a.id, r.url);
    await createEndpoint(db.sql, a.id, r.url.replace('127.0.0.1', 'localhost'));
    await createEndpoint(db.sql, a.id, r.url.replace('127.0.0.1', '[::ffff:127.0.0.1]'));
    await dispatcher({ allowedCidrs: [], policy: { schedule: [0], jitter: 0, retryAfterMaxSeconds: 1 } }).start();
    const eventId = await emit(db.sql, a.id);
    await waitUntil(
      async () =>
        (
          await db.sql`select count(*)::int as n from public.webhook_deliveries where event_id = ${eventId}
            and status = 'failed'`
        )[0].n === 3,
      10_000,
      'refused',
    );
    const errors =
      await db.sql`select a.error_message from public.webhook_delivery_attempts a join public.webhook_deliveries d
        on d.id = a.delivery_id where d.event_id = ${eventId}`;
    expect(errors).toHaveLength(3);
    for (const e of errors) expect(e.error_message).toMatch(/^refused: .*private or reserved range/);
    expect(r.requests).toHaveLength(0);
  });

  it('connects by name when the resolved address is in an allowed range', async () => {
    const r = await receiver();
    await createEndpoint(db.sql, a.id, r.url.replace('127.0.0.1', 'localhost'));
    await dispatcher({ allowedCidrs: parseCidrList('127.0.0.0/8, ::1/128') }).start();
    await emit(db.sql, a.id);
    await r.waitFor(1);
  });
});

describe('isolation and durability', () => {
  it('a hanging receiver does not delay deliveries to a healthy endpoint', async () => {
    const hanging = await receiver(() => {
      /* never answers */
    });
    const healthy = await receiver();
    await createEndpoint(db.sql, a.id, hanging.url, { events: ['message.created'] });
    await createEndpoint(db.sql, a.id, healthy.url, { events: ['message.created', 'member.joined'] });
    await dispatcher({ timeoutMs: 20_000, concurrency: 6, perEndpointConcurrency: 2 }).start();
    for (let i = 0; i < 10; i++) await emit(db.sql, a.id, 'message.created');
    await hanging.waitFor(2);
    for (let i = 0; i < 10; i++) await emit(db.sql, a.id, 'member.joined');
    await healthy.waitFor(20);
    // The hanging endpoint holds only its own slots: two requests in flight, none answered, none timed out yet.
    expect(hanging.requests).toHaveLength(2);
    const [n] = await db.sql`select count(*)::int as n from public.webhook_delivery_attempts where endpoint_id in
      (select id from public.webhook_endpoints where url = ${hanging.url})`;
    expect(n.n).toBe(0);
  });

  it('a killed dispatcher loses nothing: its lease expires and another delivers the same webhook_id', async () => {
    let hang = true;
    const r = await receiver((_q, res) => {
      if (!hang) res.writeHead(200).end();
    });
    await createEndpoint(db.sql, a.id, r.url);
    const first = dispatcher({ leaseMs: 1500 });
    await first.start();
    const eventId = await emit(db.sql, a.id);
    await r.waitFor(1);
    await first.kill();
    hang = false;
    const d0 = await delivery(eventId);
    expect(d0).toMatchObject({ status: 'queued', attempt_count: 1 });
    expect(d0.locked_by).toBe(first.workerId);
    await dispatcher({ leaseMs: 1500 }).start();
    await waitUntil(async () => (await delivery(eventId)).status === 'delivered', 10_000, 'delivered after lease');
    expect(r.requests).toHaveLength(2);
    expect(r.requests[0].headers['x-webhook-id']).toBe(r.requests[1].headers['x-webhook-id']);
    expect((await attempts(d0.id)).map((x) => [x.attempt, x.status])).toEqual([[2, 'success']]);
  });

  it('two dispatchers together deliver every event once and never make the same attempt twice', async () => {
    const r = await receiver();
    await createEndpoint(db.sql, a.id, r.url, { events: ['message.created'] });
    await createEndpoint(db.sql, a.id, r.url, { events: ['message.created'] });
    const one = dispatcher({ perEndpointConcurrency: 4 });
    const two = dispatcher({ perEndpointConcurrency: 4 });
    await Promise.all([one.start(), two.start()]);
    await db.sql`select domain.emit_event(${a.id}, 'message.created', jsonb_build_object('n', g))
      from generate_series(1, 150) g`;
    await r.waitFor(300);
    await waitUntil(
      async () =>
        (
          await db.sql`select count(*)::int as n from public.webhook_deliveries where auction_id = ${a.id}
            and status = 'delivered'`
        )[0].n === 300,
      10_000,
      'all delivered',
    );
    const ids = r.requests.map((q) => q.headers['x-webhook-id']);
    expect(new Set(ids).size).toBe(300);
    expect(ids).toHaveLength(300);
    const [c] = await db.sql`select count(*)::int as n, count(distinct delivery_id)::int as d
        from public.webhook_delivery_attempts where auction_id = ${a.id}`;
    expect(c).toEqual({ n: 300, d: 300 });
    expect(one.stats().claimed).toBeGreaterThan(0);
    expect(two.stats().claimed).toBeGreaterThan(0);
  });

  it('restarts its loop when it stops making progress, says why, and then delivers', async () => {
    const r = await receiver();
    await createEndpoint(db.sql, a.id, r.url);
    const errors: string[] = [];
    const d = dispatcher({
      stallAfterMs: 600,
      pollIntervalMs: 100,
      log: { ...quiet, error: (msg) => errors.push(msg) },
    });
    // A table lock makes the claim query hang: the loop stalls the way it would on a dead connection.
    const { release, locking, blocker } = lockDeliveries();
    await new Promise((res) => setTimeout(res, 100));
    await d.start();
    await waitUntil(async () => d.stats().restarts > 0, 10_000, 'a restart');
    expect(errors).toContain('webhook dispatcher stalled; restarting its loop');
    release();
    await locking;
    await blocker.end();
    await emit(db.sql, a.id);
    await r.waitFor(1);
  });

  it('gives back the leases of a claim whose answer it never got, instead of leaving them for a lease', async () => {
    const r = await receiver();
    await createEndpoint(db.sql, a.id, r.url);
    await emit(db.sql, a.id);
    // What a claim that committed while its connection broke leaves: leased to this worker for an hour, unsent.
    await db.sql`update public.webhook_deliveries set attempt_count = attempt_count + 1, locked_by = 'w-lost',
      locked_until = now() + interval '1 hour', lease_token = gen_random_uuid() where auction_id = ${a.id}`;
    // Its next claim fails: a table lock outlasts the statement timeout of the dispatcher's connection.
    const timing = postgres(db.ownerUrl, { max: 1, onnotice: () => {}, connection: { statement_timeout: 300 } });
    const { release, locking, blocker } = lockDeliveries();
    try {
      await new Promise((res) => setTimeout(res, 100));
      const d = dispatcher({ sql: timing, workerId: 'w-lost', pollIntervalMs: 100 });
      await d.start();
      await new Promise((res) => setTimeout(res, 600));
      release();
      await locking;
      await r.waitFor(1);
      const [row] =
        await db.sql`select status, attempt_count from public.webhook_deliveries where auction_id = ${a.id}`;
      // One attempt, the one really made: the lost claim's count was taken back.
      await waitUntil(
        async () =>
          (await db.sql`select status from public.webhook_deliveries where auction_id = ${a.id}`)[0].status ===
          'delivered',
        5_000,
        'the delivery recorded',
      );
      expect(row.attempt_count).toBe(1);
    } finally {
      release();
      await blocker.end();
      await timing.end();
    }
  });
});
