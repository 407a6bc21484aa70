// A fake OpenTelemetry collector: a real HTTP server on loopback that keeps every OTLP export it receives (the
// body and its content type), and reads the spans out of the JSON ones.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Export {
  path: string;
  contentType: string;
  body: Buffer;
}

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: Array<{ key: string; value: { stringValue?: string; intValue?: string | number } }>;
}

export async function startFakeCollector() {
  const exports: Export[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      exports.push({
        path: req.url ?? '',
        contentType: req.headers['content-type'] ?? '',
        body: Buffer.concat(chunks),
      });
      res.writeHead(200, { 'content-type': req.headers['content-type'] ?? 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exports,
    /** The spans of every JSON export. */
    spans(): OtlpSpan[] {
      return exports
        .filter((e) => e.contentType.includes('json'))
        .flatMap((e) => JSON.parse(e.body.toString('utf8')).resourceSpans ?? [])
        .flatMap((r: { scopeSpans?: Array<{ spans?: OtlpSpan[] }> }) => r.scopeSpans ?? [])
        .flatMap((s: { spans?: OtlpSpan[] }) => s.spans ?? []);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export const attributeOf = (span: OtlpSpan, key: string) => {
  const v = span.attributes?.find((a) => a.key === key)?.value;
  return v?.stringValue ?? v?.intValue;
};
