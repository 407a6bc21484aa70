// A minimal node:http host for end-to-end tests: claims come from the test header x-test-claims (JWT
// verification is the server's job, not the engine's).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RestEngine } from '../src/index.js';

export async function serveEngine(engine: RestEngine): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', 'http://x');
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers))
      if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
    const claims = headers['x-test-claims'] ? JSON.parse(headers['x-test-claims']) : undefined;
    const out = await engine.handle({
      method: req.method ?? 'GET',
      path: url.pathname.replace(/^\/rest\/v1/, '') || '/',
      search: url.search.slice(1),
      headers,
      body: chunks.length ? Buffer.concat(chunks).toString('utf8') : undefined,
      claims,
    });
    res.writeHead(out.status, out.headers);
    res.end(out.bytes ?? out.body ?? undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/rest/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
