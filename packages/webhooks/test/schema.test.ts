// The webhooks schema against real Postgres: fan-out from the outbox, write-only secrets and rotation, URL and
// event validation, row security by role, and the admin RPCs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import postgres from 'postgres';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { authMigrations } from '@auction-ops/auth-core';
import { domainMigrations } from '@auction-ops/domain';
import { webhookMigrations } from '../src/index.js';
import { asRole, createAuction, createEndpoint, emit, type Auction } from './helpers.js';

let db: TestDatabase;
let req: postgres.Sql;
let a: Auction;
let b: Auction;

beforeAll(async () => {
  db = await createTestDatabase([authMigrations, domainMigrations, webhookMigrations]);
  req = postgres(db.requestUrl, { max: 2, onnotice: () => {} });
  a = await createAuction(db.sql);
  b = await createAuction(db.sql);
});
afterAll(async () => {
  await req.end();
  await db.drop();
});

describe('fan-out', () => {
  it('one delivery per matching active endpoint, with the documented body, notified at commit', async () => {
    const url = 'https://hooks.example.com/a';
    const match = await createEndpoint(db.sql, a.id, url, { events: ['problem.created', 'message.created'] });
    await createEndpoint(db.sql, a.id, url, { events: ['problem.created'], active: false });
    await createEndpoint(db.sql, a.id, url, { events: ['message.created'] });
    await createEndpoint(db.sql, b.id, url, { events: ['problem.created'] });
    const notified: string[] = [];
    const listener = postgres(db.ownerUrl, { max: 1, onnotice: () => {} });
    await listener.listen('webhook_deliveries', (p) => notified.push(p));
    const eventId = await emit(db.sql, a.id, 'problem.created', { id: 'p1', issue_name: 'Rock' });
    const rows = await db.sql`select * from public.webhook_deliveries where event_id = ${eventId}`;
    expect(rows).toHaveLength(1);
    const [d] = rows;
    expect(d).toMatchObject({
      endpoint_id: match,
      auction_id: a.id,
      event_type: 'problem.created',
      status: 'queued',
      attempt_count: 0,
    });
    const [ev] = await db.sql`select occurred_at from public.event_outbox where id = ${eventId}`;
    expect(d.payload).toEqual({
      event: 'problem.created',
      timestamp: (ev.occurred_at as Date).toISOString(),
      webhook_id: d.id,
      auction_id: a.id,
      data: { id: 'p1', issue_name: 'Rock' },
    });
    for (let i = 0; i < 40 && notified.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
    expect(notified.length).toBeGreaterThan(0);
    await listener.end();
  });

  it('creates nothing when the event rolls back, and never twice for one event and endpoint', async () => {
    const before = await db.sql`select count(*)::int as n from public.webhook_deliveries`;
    await db.sql
      .begin(async (tx) => {
        await tx`select domain.emit_event(${a.id}, 'problem.created', '{}')`;
        await tx`select 1/0`;
      })
      .catch(() => {});
    const after = await db.sql`select count(*)::int as n from public.webhook_deliveries`;
    expect(after[0].n).toBe(before[0].n);
    const eventId = await emit(db.sql, a.id, 'problem.created');
    const [d] = await db.sql`select endpoint_id from public.webhook_deliveries where event_id = ${eventId}`;
    await expect(db.sql`insert into public.webhook_deliveries (endpoint_id, auction_id, event_id, event_type, payload)
      values (${d.endpoint_id}, ${a.id}, ${eventId}, 'problem.created', '{}')`).rejects.toThrow(
      /webhook_deliveries_event_endpoint_key/,
    );
  });
});

describe('endpoints', () => {
  it('keeps the secret write-only and rotates it with a 24 h overlap', async () => {
    const id = await asRole(req, 'authenticated', a.admin, async (tx) => {
      const [e] = await tx`insert into public.webhook_endpoints (auction_id, url, events, secret)
        values (${a.id}, 'https://hooks.example.com/x', ${['message.created']}, 'whsec_first-secret-value')
          returning *`;
      expect(e.secret).toBeNull();
      expect(e.created_by).toBe(a.admin);
      return e.id as string;
    });
    const read = await asRole(
      req,
      'authenticated',
      a.admin,
      (tx) => tx`select * from public.webhook_endpoints where id = ${id}`,
    );
    expect(read[0].secret).toBeNull();
    const viaService = await asRole(
      req,
      'service_role',
      null,
      (tx) => tx`select secret from public.webhook_endpoints where id = ${id}`,
    );
    expect(viaService[0].secret).toBeNull();
    await asRole(req, 'authenticated', a.admin, (tx) => tx`select * from webhooks.endpoint_secrets`).then(
      () => expect.unreachable(),
      (e) => expect(String(e)).toMatch(/permission denied/),
    );
    await asRole(
      req,
      'authenticated',
      a.admin,
      (tx) => tx`update public.webhook_endpoints set secret = 'second-secret-value-123' where id = ${id}`,
    );
    const [s] =
      await db.sql`select secret, previous_secret, previous_secret_expires_at - now() > interval '23 hours' as overlap
      from webhooks.endpoint_secrets where endpoint_id = ${id}`;
    expect(s).toEqual({
      secret: 'second-secret-value-123',
      previous_secret: 'whsec_first-secret-value',
      overlap: true,
    });
  });

  it('validates the URL (https unless allowed), the events and the secret', async () => {
    const bad = (url: string, events: string[] = ['message.created'], secret = 'long-enough-secret-1') =>
      asRole(
        req,
        'authenticated',
        a.admin,
        (tx) => tx`insert into public.webhook_endpoints (auction_id, url, events, secret)
        values (${a.id}, ${url}, ${events}, ${secret})`,
      );
    await expect(bad('http://hooks.example.com/')).rejects.toThrow(/must use https/);
    await expect(bad('ftp://hooks.example.com/')).rejects.toThrow(/absolute http/);
    await expect(bad('https://user:pw@hooks.example.com/')).rejects.toThrow(/without credentials/);
    await expect(bad('https://hooks.example.com/', ['message.created', 'nope.event'])).rejects.toThrow(
      /unknown webhook event type: nope.event/,
    );
    await expect(bad('https://hooks.example.com/', [])).rejects.toThrow(/at least one event/);
    await expect(bad('https://hooks.example.com/', ['message.created'], 'short')).rejects.toThrow(/at least 16/);
    await db.sql`update webhooks.settings set allow_http = true`;
    await expect(bad('http://hooks.example.com/')).resolves.toBeDefined();
    await db.sql`update webhooks.settings set allow_http = false`;
  });

  it('lets only admins and above of the auction (and super admins) manage endpoints', async () => {
    const id = await createEndpoint(db.sql, a.id, 'https://hooks.example.com/rls');
    const count = (user: string) =>
      asRole(req, 'authenticated', user, (tx) => tx`select id from public.webhook_endpoints where id = ${id}`).then(
        (r) => r.length,
      );
    expect(await count(a.owner)).toBe(1);
    expect(await count(a.admin)).toBe(1);
    expect(await count(a.member)).toBe(0);
    expect(await count(b.admin)).toBe(0);
    await db.sql`insert into public.super_admins (user_id) values (${a.outsider})`;
    expect(await count(a.outsider)).toBe(1);
    await db.sql`delete from public.super_admins where user_id = ${a.outsider}`;
    const insertAs = (user: string) =>
      asRole(
        req,
        'authenticated',
        user,
        (tx) => tx`insert into public.webhook_endpoints (auction_id, url, events, secret)
          values (${a.id}, 'https://h.example.com/', ${['message.created']}, 'long-enough-secret-1')`,
      );
    await expect(insertAs(a.member)).rejects.toThrow(/row-level security/);
    await expect(insertAs(b.admin)).rejects.toThrow(/row-level security/);
    const updated = await asRole(
      req,
      'authenticated',
      b.admin,
      (tx) => tx`update public.webhook_endpoints set url = 'https://evil.example.com/' where id = ${id} returning id`,
    );
    expect(updated).toHaveLength(0);
    await expect(
      asRole(
        req,
        'authenticated',
        a.admin,
        (tx) => tx`update public.webhook_endpoints set consecutive_failures = 0 where id = ${id}`,
      ),
    ).rejects.toThrow(/permission denied/);
    await expect(asRole(req, 'anon', null, (tx) => tx`select * from public.webhook_endpoints`)).rejects.toThrow(
      /permission denied/,
    );
  });

  it('fails queued deliveries when disabled, and re-enabling resets the failure count', async () => {
    const id = await createEndpoint(db.sql, b.id, 'https://hooks.example.com/d', { events: ['member.joined'] });
    await emit(db.sql, b.id, 'member.joined');
    await db.sql`update public.webhook_endpoints set consecutive_failures = 3 where id = ${id}`;
    await asRole(
      req,
      'authenticated',
      b.admin,
      (tx) => tx`update public.webhook_endpoints set is_active = false where id = ${id}`,
    );
    const [e] =
      await db.sql`select is_active, disabled_at is not null as disabled, disabled_reason from public.webhook_endpoints
        where id = ${id}`;
    expect(e).toEqual({ is_active: false, disabled: true, disabled_reason: 'disabled by an administrator' });
    const [d] = await db.sql`select status, last_error from public.webhook_deliveries where endpoint_id = ${id}`;
    expect(d).toEqual({ status: 'failed', last_error: 'endpoint disabled: disabled by an administrator' });
    await asRole(
      req,
      'authenticated',
      b.admin,
      (tx) => tx`update public.webhook_endpoints set is_active = true where id = ${id}`,
    );
    const [r] = await db.sql`select consecutive_failures, disabled_at, disabled_reason from public.webhook_endpoints
        where id = ${id}`;
    expect(r).toEqual({ consecutive_failures: 0, disabled_at: null, disabled_reason: null });
  });
});

describe('logs and RPCs', () => {
  it('shows deliveries and attempts read-only to admins of the auction', async () => {
    const id = await createEndpoint(db.sql, a.id, 'https://hooks.example.com/logs', { events: ['channel.created'] });
    await emit(db.sql, a.id, 'channel.created');
    const [d] = await db.sql`select id from public.webhook_deliveries where endpoint_id = ${id}`;
    await db.sql`insert into public.webhook_delivery_attempts (delivery_id, endpoint_id, auction_id, event_type,
      attempt, status, response_status)
      values (${d.id}, ${id}, ${a.id}, 'channel.created', 1, 'failed', 500)`;
    const seen = (user: string) =>
      asRole(req, 'authenticated', user, async (tx) => [
        (await tx`select id from public.webhook_deliveries where endpoint_id = ${id}`).length,
        (await tx`select id from public.webhook_delivery_attempts where endpoint_id = ${id}`).length,
      ]);
    expect(await seen(a.admin)).toEqual([1, 1]);
    expect(await seen(a.member)).toEqual([0, 0]);
    expect(await seen(b.owner)).toEqual([0, 0]);
    await expect(
      asRole(
        req,
        'authenticated',
        a.admin,
        (tx) => tx`update public.webhook_deliveries set status = 'delivered' where id = ${d.id}`,
      ),
    ).rejects.toThrow(/permission denied/);
    await expect(
      asRole(req, 'authenticated', a.admin, (tx) => tx`delete from public.webhook_delivery_attempts`),
    ).rejects.toThrow(/permission denied/);
  });

  it('test_webhook queues a sample delivery of any event type for admins only', async () => {
    const id = await createEndpoint(db.sql, a.id, 'https://hooks.example.com/test', { events: ['message.created'] });
    const types = (await db.sql`select unnest(webhooks.event_types()) as t`).map((r) => r.t as string);
    const catalogue = await db.sql<{ name: string; sample: object }[]>`select name, sample from public.event_types`;
    expect(types).toEqual(catalogue.map((c) => c.name).sort());
    for (const t of types) {
      const [r] = await asRole(req, 'authenticated', a.admin, (tx) => tx`select public.test_webhook(${id}, ${t}) as r`);
      expect(Object.keys(r.r).sort()).toEqual(['delivery_id', 'status']);
      expect(r.r.status).toBe('queued');
      const [d] = await db.sql`select payload, is_test from public.webhook_deliveries where id = ${r.r.delivery_id}`;
      expect(d.is_test).toBe(true);
      expect(d.payload.event).toBe(t);
      expect(d.payload.webhook_id).toBe(r.r.delivery_id);
      expect(d.payload.data).toEqual(catalogue.find((c) => c.name === t)!.sample);
    }
    await expect(
      asRole(req, 'authenticated', a.member, (tx) => tx`select public.test_webhook(${id}, 'message.created')`),
    ).rejects.toThrow(/not found/);
    await expect(
      asRole(req, 'authenticated', b.admin, (tx) => tx`select public.test_webhook(${id}, 'message.created')`),
    ).rejects.toThrow(/not found/);
    await expect(
      asRole(req, 'authenticated', a.admin, (tx) => tx`select public.test_webhook(${id}, 'bogus')`),
    ).rejects.toThrow(/unknown webhook event type/);
    await expect(
      asRole(req, 'anon', null, (tx) => tx`select public.test_webhook(${id}, 'message.created')`),
    ).rejects.toThrow(/permission denied/);
  });

  it('replays one delivery, and all failed deliveries of an endpoint since a time', async () => {
    const id = await createEndpoint(db.sql, a.id, 'https://hooks.example.com/replay', { events: ['member.removed'] });
    for (let i = 0; i < 3; i++) await emit(db.sql, a.id, 'member.removed');
    const ds = await db.sql`select id from public.webhook_deliveries where endpoint_id = ${id} order by created_at`;
    await db.sql`update public.webhook_deliveries set status = 'failed', attempt_count = 6, created_at = now() -
      interval '2 days' where id = ${ds[0].id}`;
    await db.sql`update public.webhook_deliveries set status = 'failed', attempt_count = 6 where id = ${ds[1].id}`;
    await db.sql`update public.webhook_deliveries set status = 'delivered', attempt_count = 1 where id = ${ds[2].id}`;
    await expect(
      asRole(req, 'authenticated', a.member, (tx) => tx`select public.replay_webhook_delivery(${ds[2].id})`),
    ).rejects.toThrow(/not found/);
    const [one] = await asRole(
      req,
      'authenticated',
      a.admin,
      (tx) => tx`select public.replay_webhook_delivery(${ds[2].id}) as r`,
    );
    expect(one.r).toEqual({ delivery_id: ds[2].id, status: 'queued' });
    await expect(
      asRole(req, 'authenticated', a.admin, (tx) => tx`select public.replay_webhook_delivery(${ds[2].id})`),
    ).rejects.toThrow(/already queued/);
    // Members, admins of another auction and anon can replay nothing, and learn nothing about the ids.
    await expect(
      asRole(req, 'authenticated', b.admin, (tx) => tx`select public.replay_webhook_delivery(${ds[1].id})`),
    ).rejects.toThrow(/not found/);
    for (const user of [a.member, b.admin]) {
      await expect(
        asRole(
          req,
          'authenticated',
          user,
          (tx) => tx`select public.replay_failed_webhook_deliveries(${id}, now() - interval '1 day')`,
        ),
      ).rejects.toThrow(/webhook endpoint not found/);
    }
    await expect(
      asRole(req, 'anon', null, (tx) => tx`select public.replay_webhook_delivery(${ds[1].id})`),
    ).rejects.toThrow(/permission denied/);
    await expect(
      asRole(req, 'authenticated', a.admin, (tx) => tx`select webhooks.prune_logs(interval '0 days')`),
    ).rejects.toThrow(/permission denied/);
    const [untouched] = await db.sql`select status from public.webhook_deliveries where id = ${ds[1].id}`;
    expect(untouched.status).toBe('failed');
    const [all] = await asRole(
      req,
      'authenticated',
      a.admin,
      (tx) => tx`select public.replay_failed_webhook_deliveries(${id}, now() - interval '1 day') as r`,
    );
    expect(all.r).toEqual({ endpoint_id: id, replayed: 1 });
    const rows =
      await db.sql`select id, status, attempt_count - round_start_attempt as in_round from public.webhook_deliveries
        where endpoint_id = ${id} order by created_at`;
    expect(rows.map((r) => [r.status, r.in_round])).toEqual([
      ['failed', 6],
      ['queued', 0],
      ['queued', 0],
    ]);
  });

  it('prunes attempt logs and finished deliveries older than the retention age', async () => {
    const id = await createEndpoint(db.sql, b.id, 'https://hooks.example.com/prune', { events: ['channel.archived'] });
    await emit(db.sql, b.id, 'channel.archived');
    await emit(db.sql, b.id, 'channel.archived');
    const ds = await db.sql`select id from public.webhook_deliveries where endpoint_id = ${id}`;
    for (const d of ds) {
      await db.sql`insert into public.webhook_delivery_attempts (delivery_id, endpoint_id, auction_id, event_type,
        attempt, status, created_at)
        values (${d.id}, ${id}, ${b.id}, 'channel.archived', 1, 'success', now() - interval '40 days')`;
    }
    await db.sql`update public.webhook_deliveries set status = 'delivered', delivered_at = now() - interval '40 days',
      created_at = now() - interval '40 days' where id = ${ds[0].id}`;
    const [r] = await db.sql`select webhooks.prune_logs(interval '30 days') as r`;
    expect(r.r).toEqual({ attempts: 2, deliveries: 1 });
    expect(await db.sql`select id from public.webhook_deliveries where endpoint_id = ${id}`).toHaveLength(1);
  });
});
