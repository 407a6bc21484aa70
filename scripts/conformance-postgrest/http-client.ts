// Sends a case's request over a real socket as hspec-wai hands it to the application: exactly the test's headers
// in its order (a repeated name stays two lines), the body as bytes, no Content-Type added; answers with every
// header line as received.
import { request as httpRequest } from 'node:http';
import type { HttpRequest, HttpResponse } from './cases.js';

const TIMEOUT_MS = 30_000;

/**
 * The request target as it goes on the wire: characters HTTP does not allow there (space, non-ASCII) are
 * percent-encoded as UTF-8; hspec-wai hands the application the raw bytes, which it decodes the same way.
 */
export function wireTarget(path: string): string {
  // A few tests write the path without its leading slash (`get "items?id=eq.1"`); WAI splits it into the same
  // path segments, an HTTP request target needs the slash.
  const target = path.startsWith('/') ? path : `/${path}`;
  return target.replace(/[^\x21-\x7e]/gu, (c) => encodeURIComponent(c));
}

export function send(base: string, req: HttpRequest): Promise<HttpResponse> {
  const url = new URL(base);
  const headers: string[] = [];
  // HTTP/1.1 requires Host (Node's server answers 400 without it); hspec-wai's in-process requests have none.
  if (!req.headers.some(([k]) => k.toLowerCase() === 'host')) headers.push('Host', url.host);
  for (const [k, v] of req.headers) headers.push(k, v);
  if (req.body.length && !req.headers.some(([k]) => k.toLowerCase() === 'content-length'))
    headers.push('Content-Length', String(req.body.length));
  return new Promise((resolve, reject) => {
    const r = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: req.method,
        path: wireTarget(req.path),
        headers,
        agent: false,
        timeout: TIMEOUT_MS,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const raw = res.rawHeaders;
          const pairs: [string, string][] = [];
          for (let i = 0; i < raw.length; i += 2) pairs.push([raw[i]!.toLowerCase(), raw[i + 1]!]);
          resolve({ status: res.statusCode ?? 0, headers: pairs, body: Buffer.concat(chunks) });
        });
      },
    );
    r.on('timeout', () => r.destroy(new Error(`no answer in ${TIMEOUT_MS / 1000} s`)));
    r.on('error', reject);
    r.end(req.body.length ? req.body : undefined);
  });
}
