// Idle keep-alive connections: the server keeps them HTTP_KEEP_ALIVE_SECONDS (75 s by default, above the idle
// timeouts of the proxies put in front), says so in `Keep-Alive: timeout=N` (clients stop reusing a connection
// before it), and closes them after it. With Node's 5 s a client that stalled a few seconds sent its next request
// on a connection the server was closing and lost it to a reset.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/test-server.js';

/** Sends one keep-alive GET /health on `socket` and resolves with the response head. */
function getHealth(socket: Socket, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/content-length: (\d+)/i.exec(text)?.[1] ?? 0);
      if (text.length < end + 4 + length) return;
      socket.off('data', onData);
      resolve(text.slice(0, end));
    };
    socket.on('data', onData);
    socket.once('error', reject);
    socket.write(`GET /health HTTP/1.1\r\nHost: ${host}\r\nConnection: keep-alive\r\n\r\n`);
  });
}

async function openSocket(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  return socket;
}

describe('keep-alive', () => {
  let byDefault: TestServer;
  let short: TestServer;
  beforeAll(async () => {
    [byDefault, short] = await Promise.all([startTestServer(), startTestServer({ HTTP_KEEP_ALIVE_SECONDS: '1' })]);
  });
  afterAll(async () => {
    await Promise.all([byDefault?.stop(), short?.stop()]);
  });

  it('keeps an idle connection 75 s by default and tells the client so', async () => {
    const socket = await openSocket(byDefault.url);
    try {
      const first = await getHealth(socket, new URL(byDefault.url).host);
      expect(first).toMatch(/^HTTP\/1\.1 200/);
      expect(first).toMatch(/\r\nkeep-alive: timeout=75\r\n/i);
      // The same connection serves the next request.
      expect(await getHealth(socket, new URL(byDefault.url).host)).toMatch(/^HTTP\/1\.1 200/);
    } finally {
      socket.destroy();
    }
  });

  it('closes an idle connection after HTTP_KEEP_ALIVE_SECONDS', async () => {
    const socket = await openSocket(short.url);
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.resume();
    const head = await getHealth(socket, new URL(short.url).host);
    expect(head).toMatch(/\r\nkeep-alive: timeout=1\r\n/i);
    const deadline = new Promise<'open'>((resolve) => setTimeout(() => resolve('open'), 20_000).unref());
    expect(await Promise.race([closed.then(() => 'closed' as const), deadline])).toBe('closed');
  });
});
