// The claim on its own, against a database of many endpoints in every state: it must find each endpoint with a
// delivery due (behind a backlog it walks the endpoints with queued deliveries, one index probe each, but only when
// the oldest due deliveries cannot fill it), keep the per-endpoint limit net of what is in flight, and leave what is
// not due, leased elsewhere or inactive.
import { afterAll, beforeAll, expect, it } from 'vitest';
import postgres from 'postgres';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { authMigrations } from '@auction-ops/auth-core';
import { domainMigrations } from '@auction-ops/domain';
import { webhookMigrations } from '../src/index.js';
import { createDeliveryStore } from '../src/delivery-store.js';
import { createAuction, createEndpoint, emit } from './helpers.js';

let db: TestDatabase;
let sql: postgres.Sql;

beforeAll(async () => {
  db = await createTestDatabase([authMigrations, domainMigrations, webhookMigrations]);
  sql = postgres(db.ownerUrl, { max: 2, onnotice: () => {} });
});
afterAll(async () => {
  await sql?.end();
  await db?.drop();
});

/** An auction with one endpoint and `events` events for it: the endpoint's id and its deliveries' ids. */
async function endpointWith(events: number, options: { active?: boolean } = {}) {
  const auction = await createAuction(db.sql);
  const endpoint = await createEndpoint(db.sql, auction.id, `https://hooks.example.com/${auction.id}`, options);
  for (let i = 0; i < events; i++) await emit(db.sql, auction.id);
  const rows = await db.sql<{ id: string }[]>`
    select id from public.webhook_deliveries where endpoint_id = ${endpoint} order by next_attempt_at, id`;
  return { endpoint, deliveries: rows.map((r) => r.id) };
}

it('claims one due delivery of every endpoint that has one, within the per-endpoint limit, and nothing else', async () => {
  const due = await Promise.all(Array.from({ length: 12 }, () => endpointWith(1)));
  const busy = await endpointWith(3);
  const later = await endpointWith(2);
  await db.sql`update public.webhook_deliveries set next_attempt_at = now() + interval '1 hour'
    where endpoint_id = ${later.endpoint}`;
  const leased = await endpointWith(1);
  await db.sql`update public.webhook_deliveries set locked_by = 'other', locked_until = now() + interval '1 minute'
    where endpoint_id = ${leased.endpoint}`;
  const inactive = await endpointWith(1, { active: false });
  await endpointWith(0);

  const store = createDeliveryStore(sql);
  const claimed = await store.claim('worker-a', 64, 2, {}, 10_000);
  const ids = claimed.map((d) => d.id).sort();
  const expected = [...due.flatMap((e) => e.deliveries), ...busy.deliveries.slice(0, 2)].sort();
  expect(ids).toEqual(expected);
  expect(ids).not.toContain(inactive.deliveries[0]);

  // What is in flight counts against the limit: with both of the busy endpoint's out, its third waits; with one
  // back, it goes.
  expect(await store.claim('worker-a', 64, 2, { [busy.endpoint]: 2 }, 10_000)).toEqual([]);
  const next = await store.claim('worker-a', 64, 2, { [busy.endpoint]: 1 }, 10_000);
  expect(next.map((d) => d.id)).toEqual([busy.deliveries[2]]);
});

it('finds every endpoint behind a backlog longer than one read of the due deliveries', async () => {
  // 300 deliveries of one endpoint, all due before the others: more than the claim reads in time order, so it must
  // walk the endpoints to see the two behind them.
  const backlog = await endpointWith(0);
  const auction = await db.sql`select auction_id from public.webhook_endpoints where id = ${backlog.endpoint}`;
  await db.sql`select domain.emit_event(${auction[0]!.auction_id}, 'message.created', jsonb_build_object('n', g))
    from generate_series(1, 300) g`;
  await db.sql`update public.webhook_deliveries set next_attempt_at = now() - interval '1 hour'
    where endpoint_id = ${backlog.endpoint}`;
  const behind = [await endpointWith(1), await endpointWith(1)];

  const store = createDeliveryStore(sql);
  const claimed = await store.claim('worker-b', 64, 2, {}, 10_000);
  const of = (endpoint: string) => claimed.filter((d) => d.endpoint_id === endpoint).map((d) => d.id);
  expect(of(backlog.endpoint)).toHaveLength(2);
  for (const e of behind) expect(of(e.endpoint)).toEqual(e.deliveries);
});

it('under a backlog over several endpoints, a claim that the oldest due deliveries fill does not walk the endpoints', async () => {
  // Three endpoints with 100 due deliveries each: more than one read in time order (256), but with 8 slots per
  // endpoint that read holds 24 claimable, enough for a small claim. The earlier tests' deliveries are out of the way.
  await db.sql`update public.webhook_deliveries set status = 'delivered' where status = 'queued'`;
  const auction = await createAuction(db.sql);
  for (const n of [1, 2, 3]) await createEndpoint(db.sql, auction.id, `https://hooks.example.com/${auction.id}/${n}`);
  await db.sql`select domain.emit_event(${auction.id}, 'message.created', jsonb_build_object('n', g))
    from generate_series(1, 100) g`;
  // The claim, and the plan of the same statement run again in its transaction (then rolled back): whether the
  // walk (the recursive scan of the endpoints with queued deliveries) ran.
  const claim = async (limit: number) => {
    let statement: { text: string; params: unknown[] } | undefined;
    const traced = postgres(db.ownerUrl, {
      max: 1,
      onnotice: () => {},
      debug: (_conn, text, params) => {
        if (text.includes('with recursive due')) statement = { text, params: params as unknown[] };
      },
    });
    let outcome: { claimed: number; walked: boolean } | undefined;
    await traced
      .begin(async (tx) => {
        const claimed = await createDeliveryStore(tx as unknown as postgres.Sql).claim(
          'worker-e',
          limit,
          8,
          {},
          10_000,
        );
        const [row] = await tx.unsafe(
          `explain (analyze, format json) ${statement!.text}`,
          statement!.params as never[],
        );
        const loops = (node: PlanNode): number[] => [
          ...(node['Node Type'] === 'Recursive Union' ? [node['Actual Loops']] : []),
          ...(node.Plans ?? []).flatMap(loops),
        ];
        const walks = loops((row!['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0]!.Plan);
        expect(walks).toHaveLength(1);
        outcome = { claimed: claimed.length, walked: walks[0]! > 0 };
        throw new Error('rolled back');
      })
      .catch(() => {})
      .finally(() => traced.end());
    return outcome;
  };
  expect(await claim(4)).toEqual({ claimed: 4, walked: false });
  // A claim of 64 is more than the read can fill: it walks, and finds the 24 the endpoints' slots allow.
  expect(await claim(64)).toEqual({ claimed: 24, walked: true });
  await db.sql`update public.webhook_deliveries set status = 'delivered' where status = 'queued'`;
});

interface PlanNode {
  'Node Type': string;
  'Actual Loops': number;
  Plans?: PlanNode[];
}

it('what is in flight is not due until its lease ends, and a lease given back is due at once', async () => {
  const { endpoint, deliveries } = await endpointWith(1);
  const store = createDeliveryStore(sql);
  const claimed = await store.claim('worker-c', 64, 2, {}, 60_000);
  expect(claimed.map((d) => d.id)).toContain(deliveries[0]);
  const state = () => db.sql`select next_attempt_at > now() as later, locked_until = next_attempt_at as at_lease_end
    from public.webhook_deliveries where endpoint_id = ${endpoint}`;
  expect(await state()).toEqual([{ later: true, at_lease_end: true }]);
  // Nothing of it is claimed again while leased (inflight of this worker aside).
  expect((await store.claim('worker-d', 64, 2, {}, 60_000)).map((d) => d.id)).not.toContain(deliveries[0]);

  // The claim's answer was lost: worker-c gives back what it has not in flight, due now.
  await store.releaseLost('worker-c', []);
  const [after] = await db.sql`select next_attempt_at <= now() as due, locked_until from public.webhook_deliveries
    where endpoint_id = ${endpoint}`;
  expect(after).toEqual({ due: true, locked_until: null });
  expect((await store.claim('worker-d', 64, 2, {}, 60_000)).map((d) => d.id)).toContain(deliveries[0]);
});
