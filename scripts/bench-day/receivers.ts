// The fake webhook receivers: HTTP servers on loopback, each serving several endpoints (a path per endpoint). Of
// the requests, a share answers 200 only after `slowSeconds` and a share answers 500 (chosen at random per request,
// so a retry may succeed); the rest 200 at once. 'down' closes a server (connections refused) and 'up' listens on
// its port again: the receiver fault. Every request arriving is recorded with the event's occurrence time.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { recordBuffer, tell } from './child.js';

interface Start {
  type: 'start';
  servers: number;
  slowShare: number;
  slowSeconds: number;
  failShare: number;
}

const buffer = recordBuffer();
const servers: Array<{ server: http.Server; port: number }> = [];
let behaviour: Start;

function handler(req: http.IncomingMessage, res: http.ServerResponse) {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const t = Date.now();
    let body: { event?: string; timestamp?: string; data?: { id?: string } } = {};
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      // recorded with what the headers say
    }
    const roll = Math.random();
    const answered = roll < behaviour.failShare ? 500 : 200;
    buffer.push('arrivals', {
      t,
      webhookId: String(req.headers['webhook-id'] ?? req.headers['x-webhook-id']),
      endpoint: req.url ?? '',
      event: String(body.event ?? req.headers['x-webhook-event']),
      subject: String(body.data?.id ?? ''),
      occurred: body.timestamp ? Date.parse(body.timestamp) : 0,
      answered,
    });
    const delay =
      roll >= behaviour.failShare && roll < behaviour.failShare + behaviour.slowShare
        ? behaviour.slowSeconds * 1000
        : 0;
    const timer = setTimeout(() => res.writeHead(answered).end(), delay);
    res.on('close', () => clearTimeout(timer));
  });
}

const listen = (server: http.Server, port: number) =>
  new Promise<number>((resolve) =>
    server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );

process.on('message', async (m: Start | { type: 'down' | 'up'; index: number } | { type: 'stop' }) => {
  if (m.type === 'start') {
    behaviour = m;
    for (let i = 0; i < m.servers; i++) {
      const server = http.createServer(handler);
      servers.push({ server, port: await listen(server, 0) });
    }
    tell({ type: 'started', urls: servers.map((s) => `http://127.0.0.1:${s.port}`) });
  } else if (m.type === 'down') {
    const s = servers[m.index]!;
    s.server.closeAllConnections();
    await new Promise((r) => s.server.close(r));
  } else if (m.type === 'up') {
    const s = servers[m.index]!;
    s.server = http.createServer(handler);
    await listen(s.server, s.port);
  } else if (m.type === 'stop') {
    // Stop listening first: a retry arriving after the last flush would be answered but never recorded.
    await Promise.all(
      servers.map((s) => {
        s.server.closeAllConnections();
        return new Promise((r) => s.server.close(r));
      }),
    );
    buffer.close();
    tell({ type: 'done' });
    setTimeout(() => process.exit(0), 200);
  }
});
tell({ type: 'ready' });
