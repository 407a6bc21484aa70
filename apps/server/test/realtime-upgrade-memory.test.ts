// An open WebSocket keeps nothing of the HTTP request that opened it. A listener left on the socket for its whole
// life once shared the upgrade handler's scope and so kept the upgrade request (its headers, the API key in its URL)
// alive as long as the connection: a few kilobytes of every one of the K = 20 day's 11,000 WebSockets.
// The handshake is written by hand on plain sockets, so every IncomingMessage in this process is the server's.
import { IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { queryObjects } from 'node:v8';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from './support/test-server.js';
import { startRealtimeServer } from './realtime.fixture.js';

let server: TestServer;
const sockets: Socket[] = [];

beforeAll(async () => {
  server = await startRealtimeServer();
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await server?.stop();
});

/** A WebSocket handshake on a plain socket; resolves with the socket once the server answered 101. */
function openWebSocket(url: string, apiKey: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  sockets.push(socket);
  return new Promise((resolve, reject) => {
    let head = '';
    socket.once('error', reject);
    socket.on('data', function onData(chunk: Buffer) {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      if (head.startsWith('HTTP/1.1 101')) resolve(socket);
      else reject(new Error(`the upgrade was answered ${head.split('\r\n')[0]}`));
    });
    socket.write(
      `GET /realtime/v1/websocket?apikey=${apiKey}&vsn=2.0.0 HTTP/1.1\r\nHost: ${hostname}:${port}\r\n` +
        'Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n' +
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
    );
  });
}

/** Request objects alive in this process after a full garbage collection (queryObjects collects first). */
const liveRequests = () => queryObjects(IncomingMessage, { format: 'count' }) as number;

describe('an open WebSocket', () => {
  it('does not keep the upgrade request that opened it', async () => {
    const before = liveRequests();
    for (let i = 0; i < 40; i++) await openWebSocket(server.url, server.anonKey);
    // With the captured listener each of the 40 kept its request: 40 more. A few in flight elsewhere are allowed.
    expect(liveRequests() - before).toBeLessThan(5);
    // Counted while every connection is still open, not after the server let them go.
    expect(sockets.every((s) => !s.destroyed)).toBe(true);
  });
});
