// WEBHOOK_TLS_CA_FILE: a receiver on a private network with its own certificate authority gets deliveries over
// HTTPS once its CA is configured (the public roots stay trusted alongside it).
import https from 'node:https';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TestDatabase } from '@auction-ops/database/testing';
import { startTestServer, type TestServer } from './support/test-server.js';
import { TEST_CERT, TEST_KEY } from '../../../packages/webhooks/test/fixtures/tls.js';

let t: TestServer;
let db: TestDatabase;
let dir: string;
let receiver: https.Server;
const received: string[] = [];

beforeAll(async () => {
  receiver = https.createServer({ cert: TEST_CERT, key: TEST_KEY }, (req, res) => {
    req.resume();
    req.on('end', () => {
      received.push(String(req.headers['x-webhook-id']));
      res.end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  dir = mkdtempSync(join(tmpdir(), 'auction-ops-webhooks-tls-'));
  writeFileSync(join(dir, 'ca.pem'), TEST_CERT);
  t = await startTestServer({
    JWT_SECRET: 't'.repeat(40),
    WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8',
    WEBHOOK_TLS_CA_FILE: join(dir, 'ca.pem'),
    WEBHOOK_POLL_INTERVAL_MS: '100',
  });
  ({ db } = t);
});
afterAll(async () => {
  await t?.stop();
  await new Promise((r) => receiver?.close(r));
  rmSync(dir, { recursive: true, force: true });
});

it('delivers over HTTPS to a receiver whose certificate the configured CA signed', async () => {
  const url = `https://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const [a] = await db.sql`insert into public.auctions (name, slug) values ('TLS Auction', 'tls-auction') returning id`;
  await db.sql`insert into public.webhook_endpoints (auction_id, url, events, secret)
    values (${a.id}, ${url}, ${['message.created']}, 'tls-secret-0123456789')`;
  await db.sql`select domain.emit_event(${a.id}, 'message.created', '{}')`;
  // The outcome is recorded after the receiver answered: wait for the record, not only for the request.
  const recorded = async () =>
    (await db.sql`select status from public.webhook_deliveries`)[0]?.status !== 'queued' && received.length > 0;
  for (let i = 0; i < 100 && !(await recorded()); i++) await new Promise((r) => setTimeout(r, 100));
  const [delivery] = await db.sql`select id, status, last_error from public.webhook_deliveries`;
  expect(delivery).toMatchObject({ status: 'delivered', last_error: null });
  expect(received).toEqual([delivery.id]);
});
