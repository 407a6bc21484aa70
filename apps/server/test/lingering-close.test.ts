// An answer sent before the request body was read, on a connection that then closes: the client must get the
// answer, not a reset, even when it writes its whole body before reading anything (as most clients do); and a
// client that stops sending cannot hold the closing connection open past the linger bounds.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/test-server.js';

const REST_LIMIT = 1000;
const MB = 1024 * 1024;
let t: TestServer;
let port: number;

beforeAll(async () => {
  t = await startTestServer({
    JWT_SECRET: 'l'.repeat(40),
    WEBHOOK_DISPATCHER_ENABLED: 'false',
    REST_MAX_BODY_BYTES: String(REST_LIMIT),
    RATE_LIMITS_ENABLED: 'false',
  });
  port = Number(new URL(t.server.url).port);
});
afterAll(async () => {
  await t?.stop();
});

interface Exchange {
  /** The status line's code; 0 when no answer could be read (the connection was reset first). */
  status: number;
  text: string;
  /** Milliseconds from the last byte written to the connection's close. */
  closedAfterMs: number;
}

/**
 * Writes the request head and `bodyBytes` of body in 64 KB pieces without reading anything, then reads: a client
 * that sends its whole body first. A `bodyBytes` short of `declared` is a client that stops sending and waits.
 */
function writeThenRead(head: string[], declared: number, bodyBytes: number): Promise<Exchange> {
  return new Promise((resolve) => {
    const socket: Socket = connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    let wroteAll = 0;
    socket.pause();
    socket.on('data', (d) => received.push(d));
    socket.on('error', () => {});
    socket.on('close', () => {
      const text = Buffer.concat(received).toString('utf8');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text);
      resolve({ status: status ? Number(status[1]) : 0, text, closedAfterMs: Date.now() - wroteAll });
    });
    const write = (bytes: Buffer | string) => new Promise<void>((done) => socket.write(bytes, () => done()));
    socket.once('connect', async () => {
      await write(`${[...head, `content-length: ${declared}`].join('\r\n')}\r\n\r\n`);
      for (let sent = 0; sent < bodyBytes && !socket.destroyed; sent += 64 * 1024) {
        await write(Buffer.alloc(Math.min(64 * 1024, bodyBytes - sent), 0x7b));
        // Small pauses, so the answer and the close happen while the body is still on its way.
        await new Promise((r) => setTimeout(r, 2));
      }
      wroteAll = Date.now();
      socket.resume();
    });
  });
}

const restPost = () => [
  'POST /rest/v1/auctions HTTP/1.1',
  'host: 127.0.0.1',
  `apikey: ${t.server.ctx.anonKey}`,
  'content-type: application/json',
];

describe('an answer before the body was read, then the connection closes', () => {
  it('a REST body over the limit (the answer closes the connection): the client reads 413, not a reset', async () => {
    for (let i = 0; i < 3; i++) {
      const answer = await writeThenRead(restPost(), 4 * MB, 4 * MB);
      expect(answer.status).toBe(413);
      expect(answer.text).toContain('PGRST413');
    }
  });

  it('a client that asked for the connection to close gets the answer too (auth, over its limit)', async () => {
    const head = [
      'POST /auth/v1/token?grant_type=password HTTP/1.1',
      'host: 127.0.0.1',
      `apikey: ${t.server.ctx.anonKey}`,
      'content-type: application/json',
      'connection: close',
    ];
    const answer = await writeThenRead(head, 4 * MB, 4 * MB);
    expect(answer.status).toBe(413);
  });

  it('a client that stops sending mid-body is closed after the idle bound, not held open', {
    timeout: 20_000,
  }, async () => {
    const answer = await writeThenRead(restPost(), 64 * MB, 256 * 1024);
    expect(answer.status).toBe(413);
    // The linger's idle bound is 1 s; the body idle timeout would be far longer. Generous for a loaded machine.
    expect(answer.closedAfterMs).toBeLessThan(10_000);
  });
});
