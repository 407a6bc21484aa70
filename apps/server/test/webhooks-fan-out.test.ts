// Issue 57 end to end: with two webhook endpoints on each of many auctions and webhook_endpoints analyzed (what
// autovacuum did in `pnpm bench day --k 5`), the first messages a fresh request connection wrote were answered 409
// 23505 (webhook_deliveries_pkey: the fan-out gave both deliveries one id) and rolled back. Each is now answered
// 201 and stored once, with a delivery per endpoint.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/test-server.js';

/** Past the five custom plans each backend makes before it may settle on a generic one. */
const MESSAGES = 8;

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ RATE_LIMITS_ENABLED: 'false', WEBHOOK_DISPATCHER_ENABLED: 'false' });
});
afterAll(async () => {
  await t?.stop();
});

it('answers 201 for every message of an auction with two endpoints, from the first write on', async () => {
  const { sql } = t.db;
  const staff = await t.signUp('staff@fan-out.test');
  // Everything but the messages goes through the owner's connection: the request pool has fanned out nothing yet.
  const auctions = await sql<{ id: string }[]>`
    insert into public.auctions (name, slug)
    select 'Fan-out ' || g, 'fan-out-' || g from generate_series(1, 30) g returning id::text`;
  const ids = auctions.map((a) => a.id);
  await sql`
    insert into public.webhook_endpoints (auction_id, url, events, secret)
    select a, 'https://hooks.example.com/' || a || '/' || j, '{message.created}', 'fan-out-secret-0123456789'
      from unnest(${ids}::uuid[]) a, generate_series(1, 2) j`;
  await sql`analyze public.webhook_endpoints`;
  const auction = ids[0]!;
  await sql`insert into public.auction_members (auction_id, user_id, role) values (${auction}, ${staff.id}, 'team_member')`;
  const [channel] = await sql<{ id: string }[]>`
    insert into public.channels (auction_id, name) values (${auction}, 'yard') returning id::text`;

  const answers: string[] = [];
  const sent: string[] = [];
  for (let n = 0; n < MESSAGES; n++) {
    const id = randomUUID();
    sent.push(id);
    const res = await staff.client
      .from('messages')
      .insert({ id, auction_id: auction, channel_id: channel!.id, content: `fan-out ${n}` });
    answers.push(`${res.status}${res.error ? ` ${res.error.code} ${res.error.message}` : ''}`);
  }
  expect(answers).toEqual(Array(MESSAGES).fill('201'));
  const [{ messages, deliveries }] = await sql<{ messages: number; deliveries: number }[]>`
    select (select count(*)::int from public.messages where id = any(${sent}::uuid[])) as messages,
           (select count(distinct d.id)::int from public.webhook_deliveries d
              join public.event_outbox e on e.id = d.event_id
             where e.data->>'id' = any(${sent}::text[])) as deliveries`;
  expect({ messages, deliveries }).toEqual({ messages: MESSAGES, deliveries: MESSAGES * 2 });
});
