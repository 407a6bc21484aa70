import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processEnv, serverProcess } from './support/test-server.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { findFreePort } from '@auction-ops/database';
import { loadConfig, startServer } from '../src/index.js';
import { startLoopbackServer, until } from './support/loopback.js';

const secret = 'webhook-test-secret-'.padEnd(40, 'x');

interface Receiver {
  url: string;
  ids: string[];
  close(): Promise<void>;
}

/** A loopback receiver; `answer(i)` false leaves request i hanging. */
async function receiver(answer: (i: number) => boolean): Promise<Receiver> {
  const ids: string[] = [];
  const loopback = await startLoopbackServer((req, _body, res) => {
    ids.push(String(req.headers['x-webhook-id']));
    if (answer(ids.length - 1)) res.writeHead(200).end();
  });
  return { url: `${loopback.url}/hook`, ids, close: loopback.close };
}

let db: TestDatabase;
let dataDir: string;
beforeAll(async () => {
  db = await createTestDatabase([]);
  dataDir = mkdtempSync(join(tmpdir(), 'auction-ops-webhooks-'));
});
afterAll(async () => {
  await db.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

const webhookEnv = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8',
  WEBHOOK_RETRY_SCHEDULE: '0,1,1',
  WEBHOOK_JITTER: '0',
  WEBHOOK_TIMEOUT_MS: '1500',
  WEBHOOK_POLL_INTERVAL_MS: '200',
};

async function arrange(url: string): Promise<string> {
  const [u] = await db.sql`insert into auth.users (email) values (${`o${Date.now()}@x.test`}) returning id`;
  const [a] = await db.sql`insert into public.auctions (name, slug) values ('Webhook Auction', ${`wh-${Date.now()}`})
      returning id`;
  await db.sql`insert into public.auction_members (auction_id, user_id, role) values (${a.id}, ${u.id}, 'owner')`;
  await db.sql`insert into public.webhook_endpoints (auction_id, url, events, secret)
    values (${a.id}, ${url}, ${['message.created']}, 'e2e-secret-0123456789')`;
  return a.id as string;
}

describe('webhooks in the server', () => {
  it('a server killed mid-delivery loses nothing: after a restart every event arrives, same webhook_id', async () => {
    const port = await findFreePort();
    const proc = serverProcess(processEnv({ dataDir, databaseUrl: db.ownerUrl, jwtSecret: secret }, webhookEnv), port);
    const start = proc.start;
    const health = proc.healthy;

    let hang = true;
    const r = await receiver(() => !hang);
    const first = start();
    try {
      await until(health, 'first server');
      const auctionId = await arrange(r.url);
      await db.sql`select domain.emit_event(${auctionId}, 'message.created', jsonb_build_object('n', g))
        from generate_series(1, 10) g`;
      await until(() => r.ids.length >= 3, 'requests in flight');
      first.child.kill('SIGKILL');
      await first.exited;
      const stuck = await db.sql`select count(*)::int as n from public.webhook_deliveries where status = 'queued'`;
      expect(stuck[0].n).toBe(10);
      hang = false;
      const second = start();
      try {
        await until(health, 'second server');
        await until(
          async () =>
            (await db.sql`select count(*)::int as n from public.webhook_deliveries where status = 'delivered'`)[0].n ===
            10,
          'all delivered',
        );
      } finally {
        second.child.kill('SIGTERM');
        await second.exited;
      }
      const deliveries = (await db.sql`select id from public.webhook_deliveries`).map((d) => d.id as string);
      expect(new Set(r.ids)).toEqual(new Set(deliveries));
    } finally {
      if (first.child.exitCode === null) first.child.kill('SIGKILL');
      await r.close();
    }
  });

  it('keeps the dispatcher off when disabled, while the allow-HTTP setting still reaches SQL', async () => {
    await db.sql`update webhooks.settings set allow_http = false`;
    const server = await startServer(
      loadConfig({
        PORT: '0',
        DATABASE_URL: db.ownerUrl,
        DATA_DIR: dataDir,
        LOG_LEVEL: 'silent',
        JWT_SECRET: secret,
        ...webhookEnv,
        WEBHOOK_DISPATCHER_ENABLED: 'false',
      }),
    );
    const r = await receiver(() => true);
    try {
      const [s] = await db.sql`select allow_http from webhooks.settings`;
      expect(s.allow_http).toBe(true);
      const auctionId = await arrange(r.url);
      await db.sql`select domain.emit_event(${auctionId}, 'message.created', '{}')`;
      await new Promise((res) => setTimeout(res, 800));
      expect(r.ids).toHaveLength(0);
    } finally {
      await server.close();
      await r.close();
    }
  });

  it("retries on the contract's schedule to the second by default: the first retry exactly 1 minute later", async () => {
    const { WEBHOOK_RETRY_SCHEDULE: _schedule, WEBHOOK_JITTER: _jitter, ...defaults } = webhookEnv;
    const server = await startServer(
      loadConfig({
        PORT: '0',
        DATABASE_URL: db.ownerUrl,
        DATA_DIR: dataDir,
        LOG_LEVEL: 'silent',
        JWT_SECRET: secret,
        ...defaults,
      }),
    );
    const failing = await startLoopbackServer((_req, _body, res) => res.writeHead(500).end());
    try {
      const auctionId = await arrange(`${failing.url}/hook`);
      await db.sql`select domain.emit_event(${auctionId}, 'message.created', jsonb_build_object('n', g))
        from generate_series(1, 5) g`;
      const delays = async () =>
        db.sql<{ ms: number }[]>`
          select (extract(epoch from d.next_attempt_at - a.created_at) * 1000)::int as ms
            from public.webhook_deliveries d
            join public.webhook_delivery_attempts a on a.delivery_id = d.id and a.attempt = 1
           where d.auction_id = ${auctionId} and d.status = 'queued'`;
      await until(async () => (await delays()).length === 5, 'five first attempts to fail');
      // With jitter (0.2) five delays would spread over 48-72 s; the contract's schedule is exact.
      expect((await delays()).map((d) => d.ms)).toEqual([60_000, 60_000, 60_000, 60_000, 60_000]);
    } finally {
      await server.close();
      await failing.close();
    }
  });

  it('refuses a bad retry schedule at start with the variable named', () => {
    expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: '5,10' })).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
    expect(() => loadConfig({ WEBHOOK_JITTER: '2' })).toThrow(/WEBHOOK_JITTER/);
  });
});
