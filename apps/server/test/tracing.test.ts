// OpenTelemetry traces exported over OTLP to a fake collector on loopback: a server span per request named by its
// route and continuing the caller's traceparent, child spans for the REST engine's stages and for each database
// statement (the text with placeholders, never the values), in JSON and in protobuf.
import { randomBytes, randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { findFreePort } from '@auction-ops/database';
import { migratedDataDir } from './support/migrated-data-dir.js';
import { serverProcess, startTestServer } from './support/test-server.js';
import { attributeOf, startFakeCollector } from './support/fake-otlp-collector.js';
import { startLoopbackServer } from './support/loopback.js';
import { sampleOf } from './support/prometheus-text.js';

let collector: Awaited<ReturnType<typeof startFakeCollector>>;
beforeAll(async () => {
  collector = await startFakeCollector();
});
afterAll(async () => {
  await collector?.close();
});

describe('over OTLP/HTTP JSON', () => {
  const traceId = randomBytes(16).toString('hex');
  const callerSpan = randomBytes(8).toString('hex');
  const secret = randomUUID();
  // A caller that did not sample its trace: the default sampler (parentbased_always_on) follows it.
  const unsampledTraceId = randomBytes(16).toString('hex');

  beforeAll(async () => {
    const t = await startTestServer({
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'auction-ops-test',
    });
    try {
      const res = await fetch(`${t.url}/rest/v1/auctions?select=id,name&id=eq.${secret}`, {
        headers: { apikey: t.serviceRoleKey, traceparent: `00-${traceId}-${callerSpan}-01` },
      });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      const unsampled = await fetch(`${t.url}/rest/v1/auctions?select=id&id=eq.${secret}`, {
        headers: { apikey: t.serviceRoleKey, traceparent: `00-${unsampledTraceId}-${callerSpan}-00` },
      });
      await unsampled.arrayBuffer();
      const write = await fetch(`${t.url}/rest/v1/auctions`, {
        method: 'POST',
        headers: { apikey: t.serviceRoleKey, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `secret ${secret}` }),
      });
      await write.arrayBuffer();
      const unknown = await fetch(`${t.url}/no-such-path/${secret}`, { headers: { 'x-probe': 'unknown' } });
      expect(unknown.status).toBe(404);
      await unknown.arrayBuffer();
    } finally {
      // Stopping flushes the spans still batched.
      await t.stop();
    }
  });

  it('sends to /v1/traces as JSON', () => {
    expect(collector.exports.length).toBeGreaterThan(0);
    expect(collector.exports.every((e) => e.path === '/v1/traces')).toBe(true);
    expect(collector.exports[0].contentType).toMatch(/^application\/json/);
  });

  it('continues the caller trace with a server span named by the route', () => {
    const server = collector.spans().find((s) => s.traceId === traceId && s.kind === 2);
    expect(server).toBeDefined();
    expect(server!.parentSpanId).toBe(callerSpan);
    expect(server!.name).toBe('GET /rest/v1/*');
    expect(attributeOf(server!, 'http.route')).toBe('/rest/v1/*');
    expect(Number(attributeOf(server!, 'http.response.status_code'))).toBe(200);
  });

  it('has child spans for the engine stages and for each statement, without values', () => {
    const spans = collector.spans();
    const server = spans.find((s) => s.traceId === traceId && s.kind === 2)!;
    const children = spans.filter((s) => s.parentSpanId === server.spanId);
    expect(children.every((s) => s.traceId === traceId)).toBe(true);
    const names = children.map((s) => s.name);
    expect(names).toEqual(expect.arrayContaining(['rest parse', 'rest plan', 'rest compile', 'rest execute']));
    const statements = children.filter((s) => s.name.startsWith('db '));
    expect(statements.length).toBeGreaterThan(0);
    const texts = statements.map((s) => String(attributeOf(s, 'db.query.text')));
    // The read's statement, with its filter value as a placeholder.
    expect(texts.some((text) => /"auctions"/.test(text) && /\$\d/.test(text))).toBe(true);
    expect(statements.every((s) => attributeOf(s, 'db.system.name') === 'postgresql')).toBe(true);
    // Transaction control is pipelined with these statements and has no spans of its own.
    expect(names.filter((name) => /^db (BEGIN|COMMIT|ROLLBACK)$/.test(name))).toEqual([]);
  });

  it('makes no span at all for a request whose caller did not sample it', () => {
    expect(collector.spans().filter((s) => s.traceId === unsampledTraceId)).toEqual([]);
  });

  it('puts no parameter value in any span', () => {
    const all = collector.exports.map((e) => e.body.toString('utf8')).join('\n');
    expect(all).toContain('/rest/v1/*');
    expect(all).not.toContain(secret);
  });

  it('names a request for an unknown path after the catch-all, not its path', () => {
    const notFound = collector
      .spans()
      .filter((s) => s.kind === 2 && Number(attributeOf(s, 'http.response.status_code')) === 404);
    expect(notFound).toHaveLength(1);
    expect(notFound[0].name).toBe('GET /*');
  });
});

describe('over OTLP/HTTP protobuf (the default protocol)', () => {
  it('exports protobuf to the traces endpoint', async () => {
    const before = collector.exports.length;
    const t = await startTestServer({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${collector.url}/custom/traces` });
    try {
      const res = await fetch(`${t.url}/rest/v1/auctions?id=eq.${randomUUID()}`, {
        headers: { apikey: t.serviceRoleKey },
      });
      await res.arrayBuffer();
    } finally {
      await t.stop();
    }
    const sent = collector.exports.slice(before);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent[0].path).toBe('/custom/traces');
    expect(sent[0].contentType).toBe('application/x-protobuf');
    // Protobuf keeps strings as UTF-8 bytes: the span's name is there as written.
    expect(Buffer.concat(sent.map((e) => e.body)).includes('GET /rest/v1/*')).toBe(true);
  });

  it('exports on the schedule of OTEL_BSP_SCHEDULE_DELAY, before any flush at stop', async () => {
    const before = collector.exports.length;
    const t = await startTestServer({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${collector.url}/scheduled/traces`,
      OTEL_BSP_SCHEDULE_DELAY: '50',
    });
    try {
      const res = await fetch(`${t.url}/rest/v1/auctions?id=eq.${randomUUID()}`, {
        headers: { apikey: t.serviceRoleKey },
      });
      await res.arrayBuffer();
      // The default (5 s) would hold the spans far longer than this wait.
      await vi.waitFor(
        () => expect(collector.exports.slice(before).some((e) => e.path === '/scheduled/traces')).toBe(true),
        { timeout: 2000, interval: 20 },
      );
    } finally {
      await t.stop();
    }
  });
});

describe('background work', () => {
  it('traces each webhook delivery as its own trace, and counts it in the metrics', async () => {
    const received: string[] = [];
    const receiver = await startLoopbackServer((_req, body, res) => {
      received.push(body);
      res.end('ok');
    });
    const metricsToken = 'tracing-test-metrics-token-01234';
    const t = await startTestServer({
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      METRICS_TOKEN: metricsToken,
      WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '100',
    });
    try {
      const owner = (await t.signUp(`hooks-${randomUUID()}@example.com`)).client;
      const auction = await owner
        .from('auctions')
        .insert({ name: 'Traced', slug: `traced-${randomUUID()}` })
        .select()
        .single();
      expect(auction.error).toBeNull();
      const endpoint = await owner
        .from('webhook_endpoints')
        .insert({
          auction_id: auction.data.id,
          url: `${receiver.url}/hook`,
          events: ['message.created'],
          secret: 'whsec-traced-0123456789',
          is_active: true,
        })
        .select('id')
        .single();
      expect(endpoint.error).toBeNull();
      const queued = await owner.rpc('test_webhook', { endpoint_id: endpoint.data!.id, event_type: 'message.created' });
      expect(queued.error).toBeNull();
      for (let i = 0; i < 100 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
      expect(received).toHaveLength(1);
      // The outcome is written after the receiver answers.
      let delivered: number | undefined;
      for (let i = 0; i < 50 && delivered !== 1; i++) {
        const text = await (
          await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })
        ).text();
        delivered = sampleOf(text, 'webhook_attempts_total', { outcome: 'delivered' });
        if (delivered !== 1) await new Promise((r) => setTimeout(r, 100));
      }
      expect(delivered).toBe(1);
    } finally {
      await t.stop();
      await receiver.close();
    }
    const spans = collector.spans();
    const job = spans.find((s) => s.name === 'webhook delivery');
    expect(job).toBeDefined();
    // A trace of its own: no parent, and the statements it ran are its children.
    expect(job!.parentSpanId ?? '').toBe('');
    const statements = spans.filter((s) => s.parentSpanId === job!.spanId && s.name.startsWith('db '));
    expect(statements.length).toBeGreaterThan(0);
    expect(statements.every((s) => s.traceId === job!.traceId)).toBe(true);
  });
});

describe('from the production build (`pnpm start`, bin/start.mjs)', () => {
  it('starts with tracing on and exports the spans of its requests', async () => {
    // Tracing is a chunk of the build loaded only when configured: a build that resolved its packages as bundlers do
    // (the `module` condition) failed to start here with ERR_MODULE_NOT_FOUND from @opentelemetry/api's ESM build.
    const dataDir = await migratedDataDir('auction-ops-tracing-');
    const port = await findFreePort();
    const proc = serverProcess(
      {
        DATA_DIR: dataDir,
        JWT_SECRET: randomBytes(32).toString('base64url'),
        RATE_LIMITS_ENABLED: 'false',
        LOG_LEVEL: 'warn',
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '100',
      },
      port,
    );
    const server = proc.start();
    try {
      const deadline = Date.now() + 90_000;
      while (!(await proc.healthy())) {
        if (server.child.exitCode !== null) throw new Error(`the server exited at start:\n${server.output()}`);
        if (Date.now() > deadline) throw new Error('the server did not answer /health within 90 s');
        await new Promise((r) => setTimeout(r, 100));
      }
      const traceId = randomBytes(16).toString('hex');
      const res = await fetch(`http://127.0.0.1:${port}/health`, {
        headers: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
      });
      expect(res.status).toBe(200);
      await vi.waitFor(
        () => {
          if (!collector.spans().some((span) => span.traceId === traceId))
            throw new Error('no span of the request yet');
        },
        { timeout: 30_000, interval: 100 },
      );
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 150_000);
});
