import { createServer } from 'node:http';
import { context, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { createTracerProvider } from '../src/tracing/tracer-provider.js';

const sink = createServer((q, r) => { q.resume(); q.on('end', () => r.writeHead(200).end()); });
await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
const port = (sink.address() as any).port;
const provider = createTracerProvider({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf', OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on' });
const tracer = provider.getTracer('t');
const attrs = { 'db.system.name': 'postgresql', 'db.operation.name': 'SELECT', 'db.query.text': 'select set_config(...)'.repeat(5) };
function oneRequest() {
  const span = tracer.startSpan('GET', { kind: SpanKind.SERVER, attributes: { 'http.request.method': 'GET' } }, ROOT_CONTEXT);
  const ctx = trace.setSpan(ROOT_CONTEXT, span);
  for (let i = 0; i < 2; i++) tracer.startSpan('db SELECT', { kind: SpanKind.CLIENT, attributes: attrs }, ctx).end();
  for (let i = 0; i < 2; i++) tracer.startSpan('rest execute', { startTime: performance.timeOrigin + performance.now() }, ctx).end();
  span.updateName('GET /rest/v1/*'); span.setAttributes({ 'http.route': '/rest/v1/*', 'http.response.status_code': 200 });
  span.end();
}
for (const n of [20000, 50000]) {
  const cpu0 = process.cpuUsage(); const t0 = performance.now();
  for (let i = 0; i < n; i++) { oneRequest(); if (i % 200 === 0) await new Promise((r) => setImmediate(r)); }
  await provider.forceFlush();
  const cpu = process.cpuUsage(cpu0);
  console.log(n, 'requests:', ((performance.now() - t0) * 1000 / n).toFixed(1), 'µs wall/req', ((cpu.user + cpu.system) / n).toFixed(1), 'µs cpu/req');
}
// context manager cost
const cm = new AsyncLocalStorageContextManager().enable(); context.setGlobalContextManager(cm);
const n = 200000; let t0 = performance.now();
for (let i = 0; i < n; i++) await cm.with(ROOT_CONTEXT, async () => { await null; await null; });
console.log('with+2 awaits', ((performance.now() - t0) * 1000 / n).toFixed(2), 'µs');
cm.disable();
t0 = performance.now();
for (let i = 0; i < n; i++) await (async () => { await null; await null; })();
console.log('bare 2 awaits', ((performance.now() - t0) * 1000 / n).toFixed(2), 'µs');
await provider.shutdown(); sink.close();
