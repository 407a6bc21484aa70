// Every answer of the engine is buffered, so the HTTP adapters send its length: Content-Length with the body's
// bytes (not its characters), 0 for an answer without a body, none for 204 and HEAD, and never chunked framing.
// PostgREST's suite checks these lengths. The node handler is read over a real socket as raw headers.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFetchHandler, createNodeHandler } from '../src/index.js';
import { type Harness, SERVICE, setup } from './helpers.js';

let h: Harness;
let server: Server;
let port: number;
beforeAll(async () => {
  h = await setup();
  const handle = createNodeHandler(h.engine, {
    authenticate: async (headers) => (headers['x-service'] ? { claims: SERVICE } : undefined),
  });
  server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await h.close();
});

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: number;
}

function send(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => {
        bytes += c.length;
      });
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, bytes }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('node handler', () => {
  it('a JSON body: its length in bytes, not chunked', async () => {
    // 'É' is two bytes in UTF-8: a length in characters would cut the body short.
    const r = await send('POST', '/rpc/shout', { 'content-type': 'application/json' }, '{"": "été"}');
    expect(r.status).toBe(200);
    expect(r.headers['transfer-encoding']).toBeUndefined();
    expect(r.headers['content-length']).toBe(String(r.bytes));
    expect(r.bytes).toBe(Buffer.byteLength('"ÉTÉ"'));
  });
  it('an error answer carries its length', async () => {
    const r = await send('GET', '/no_such_table');
    expect(r).toMatchObject({ status: 404, headers: { 'content-length': String(r.bytes) } });
    expect(r.headers['transfer-encoding']).toBeUndefined();
  });
  it('201 without a body and OPTIONS: Content-Length 0', async () => {
    const post = await send(
      'POST',
      '/tags',
      { 'x-service': '1', 'content-type': 'application/json', prefer: 'tx=rollback' },
      '{"name":"cl"}',
    );
    expect(post).toMatchObject({ status: 201, bytes: 0, headers: { 'content-length': '0' } });
    expect(post.headers['content-type']).toBeUndefined();
    const options = await send('OPTIONS', '/tags');
    expect(options).toMatchObject({ status: 200, headers: { 'content-length': '0' } });
  });
  it('204 and HEAD: no Content-Length and no chunks', async () => {
    const del = await send('DELETE', '/tags?id=eq.999', { 'x-service': '1' });
    expect(del.status).toBe(204);
    expect(del.headers['content-length']).toBeUndefined();
    expect(del.headers['transfer-encoding']).toBeUndefined();
    const head = await send('HEAD', '/tags');
    expect(head).toMatchObject({ status: 200, bytes: 0 });
    expect(head.headers['transfer-encoding']).toBeUndefined();
  });
});

describe('fetch handler', () => {
  const handle = () => createFetchHandler(h.engine);
  it('an answer without a body says Content-Length 0; 204 and HEAD say none', async () => {
    const options = await handle()(new Request('http://x/tags', { method: 'OPTIONS' }));
    expect(options.headers.get('content-length')).toBe('0');
    const head = await handle()(new Request('http://x/tags', { method: 'HEAD' }));
    expect(head.headers.get('content-length')).toBeNull();
    const del = await handle()(new Request('http://x/tags?id=eq.999', { method: 'DELETE' }), { claims: SERVICE });
    expect(del.status).toBe(204);
    expect(del.headers.get('content-length')).toBeNull();
  });
});
