import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { SupabaseClient } from '@supabase/supabase-js';
import type { TestDatabase } from '@auction-ops/database/testing';
import { startTestServer, type TestServer } from './support/test-server.js';
import { type LoopbackServer, startLoopbackServer } from './support/loopback.js';

const SECRET = 'whsec-rest-test-0123456789';

let t: TestServer;
let db: TestDatabase;
let receiver: LoopbackServer;
let receiverUrl: string;
const received: Array<{ headers: Record<string, unknown>; body: string }> = [];
const clients: Record<string, SupabaseClient> = {};
let auctionId: string;

const user = async (name: string) => (await t.signUp(`${name}@webhooks.test`)).client;

beforeAll(async () => {
  receiver = await startLoopbackServer((req, body, res) => {
    received.push({ headers: req.headers, body });
    res.end('ok');
  });
  receiverUrl = `${receiver.url}/hook`;
  t = await startTestServer({
    // More than 60 data requests a minute from one address: the free tier's limit would refuse them.
    RATE_LIMITS_ENABLED: 'false',
    JWT_SECRET: 'w'.repeat(40),
    AUTH_RATE_LIMIT_SIGN_UP: '50',
    WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_POLL_INTERVAL_MS: '100',
  });
  ({ db } = t);
  for (const name of ['owner', 'member', 'outsider']) clients[name] = await user(name);
  const { data, error } = await clients.owner
    .from('auctions')
    .insert({ name: 'Hook Lot', slug: 'hook-lot' })
    .select()
    .single();
  if (error) throw error;
  auctionId = data.id;
  const memberId = (await clients.member.auth.getUser()).data.user!.id;
  await db.sql`insert into public.auction_members (auction_id, user_id, role)
    values (${auctionId}, ${memberId}, 'team_member')`;
});
afterAll(async () => {
  await t?.stop();
  await receiver?.close();
});

it('lets an admin register an endpoint with the documented body, and never returns the secret', async () => {
  const body = {
    auction_id: auctionId,
    url: receiverUrl,
    events: ['message.created', 'submission.created'],
    secret: SECRET,
    is_active: true,
  };
  const created = await clients.owner.from('webhook_endpoints').insert(body).select().single();
  expect(created.error).toBeNull();
  expect(created.data).toMatchObject({ auction_id: auctionId, url: receiverUrl, events: body.events, is_active: true });
  expect(created.data.secret ?? null).toBeNull();
  const listed = await clients.owner.from('webhook_endpoints').select('*').eq('auction_id', auctionId);
  expect(listed.data).toHaveLength(1);
  expect(listed.data![0].secret ?? null).toBeNull();
});

it('refuses team members and outsiders', async () => {
  const body = {
    auction_id: auctionId,
    url: receiverUrl,
    events: ['message.created'],
    secret: SECRET,
    is_active: true,
  };
  for (const name of ['member', 'outsider']) {
    const res = await clients[name].from('webhook_endpoints').insert(body);
    expect(res.status).toBe(403);
    expect(res.error?.code).toBe('42501');
    expect((await clients[name].from('webhook_endpoints').select('*')).data).toEqual([]);
  }
});

it('test_webhook queues a signed delivery that reaches the receiver', async () => {
  const { data: endpoints } = await clients.owner.from('webhook_endpoints').select('id').eq('auction_id', auctionId);
  const { data, error } = await clients.owner.rpc('test_webhook', {
    endpoint_id: endpoints![0].id,
    event_type: 'message.created',
  });
  expect(error).toBeNull();
  expect(data).toEqual({ delivery_id: expect.any(String), status: 'queued' });
  const denied = await clients.member.rpc('test_webhook', {
    endpoint_id: endpoints![0].id,
    event_type: 'message.created',
  });
  expect(denied.error).not.toBeNull();
  for (let i = 0; i < 100 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
  expect(received).toHaveLength(1);
  const [hit] = received;
  expect(hit.headers['x-webhook-id']).toBe(data.delivery_id);
  expect(hit.headers['x-webhook-event']).toBe('message.created');
  expect(hit.headers['x-webhook-signature']).toBe(
    `sha256=${createHmac('sha256', SECRET).update(hit.body).digest('hex')}`,
  );
  expect(JSON.parse(hit.body)).toMatchObject({
    event: 'message.created',
    webhook_id: data.delivery_id,
    auction_id: auctionId,
  });
});
