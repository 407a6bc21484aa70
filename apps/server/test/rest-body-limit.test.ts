import { request as httpRequest, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/test-server.js';

const LIMIT = 1000;
let t: TestServer;
let server: TestServer['server'];

beforeAll(async () => {
  t = await startTestServer({
    JWT_SECRET: 'b'.repeat(40),
    WEBHOOK_DISPATCHER_ENABLED: 'false',
    REST_MAX_BODY_BYTES: String(LIMIT),
  });
  ({ server } = t);
});
afterAll(async () => {
  await t?.stop();
});

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  json: unknown;
}

/** Sends `chunks` (chunked unless a content-length is given) and, when `end` is false, never finishes the body. */
function send(chunks: string[], headers: Record<string, string>, end: boolean): Promise<Answer> {
  const url = new URL('/rest/v1/no_such_table', server.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, {
      method: 'POST',
      headers: { apikey: server.ctx.anonKey, 'content-type': 'application/json', ...headers },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => {
        text += d;
      });
      res.on('end', () => {
        resolve({ status: res.statusCode!, headers: res.headers, json: JSON.parse(text) });
        req.destroy();
      });
    });
    req.flushHeaders();
    for (const c of chunks) req.write(c);
    if (end) req.end();
  });
}

const TOO_LARGE = {
  code: 'PGRST413',
  details: `The request body is larger than the limit of ${LIMIT} bytes`,
  hint: null,
  message: 'Payload too large',
};

describe('REST_MAX_BODY_BYTES', () => {
  it('refuses a declared Content-Length over the limit before the body is sent', async () => {
    const res = await send([], { 'content-length': String(LIMIT + 1) }, false);
    expect(res.status).toBe(413);
    expect(res.headers.connection).toBe('close');
    expect(res.json).toEqual(TOO_LARGE);
  });

  it('refuses a chunked body as soon as it passes the limit, without waiting for its end', async () => {
    const res = await send(['[', `{"a":"${'x'.repeat(LIMIT)}"}`], {}, false);
    expect(res.status).toBe(413);
    expect(res.json).toEqual(TOO_LARGE);
  });

  it('passes a body at the limit on to the engine', async () => {
    const body = `{"a":"${'x'.repeat(LIMIT - 8)}"}`;
    expect(Buffer.byteLength(body)).toBe(LIMIT);
    const res = await send([body], { 'content-length': String(LIMIT) }, true);
    // Read whole and handed to the engine, which looks the table up.
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ code: 'PGRST205' });
  });
});
