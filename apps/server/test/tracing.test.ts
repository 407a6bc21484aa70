// OpenTelemetry traces exported over OTLP to a fake collector on loopback: a server span per request named by its
// route and continuing the caller's traceparent, child spans for the REST engine's stages and for each database
// statement (the text with placeholders, never the values), in JSON and in protobuf.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from './support/test-server.js';
import { attributeOf, startFakeCollector } from './support/fake-otlp-collector.js';

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
});
