// A TCP relay on loopback in front of a database server, for tests of outages: `close()` drops every connection and
// refuses new ones until `open()`; 'silent' accepts and never answers. The port stays the same across both.
import { createServer, connect, type Server, type Socket } from 'node:net';
import { findFreePort } from '../ports.js';

export interface TcpRelay {
  /** `targetUrl` with the relay's port. */
  url: string;
  port: number;
  open(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpRelay(targetUrl: string, mode: 'forward' | 'silent' = 'forward'): Promise<TcpRelay> {
  const target = new URL(targetUrl);
  const port = await findFreePort();
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  const open = () =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        sockets.add(client);
        client.on('close', () => sockets.delete(client));
        client.on('error', () => {});
        if (mode === 'silent') return; // accepts and never answers
        const upstream = connect(Number(target.port), target.hostname);
        sockets.add(upstream);
        upstream.on('close', () => sockets.delete(upstream));
        upstream.on('error', () => client.destroy());
        client.pipe(upstream).pipe(client);
      }).listen(port, '127.0.0.1', () => resolve());
    });
  await open();
  const url = new URL(targetUrl);
  url.port = String(port);
  return {
    url: url.toString(),
    port,
    open,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server?.close(r));
    },
  };
}
