// HTTP upgrade requests: each runs through the Hono app (and so the gateway) as a web Request; when the realtime
// route accepts it, realtime takes the socket, otherwise the app's answer (401, 426, 404...) is written back.
import type { IncomingMessage, Server } from 'node:http';
import type { Http2SecureServer } from 'node:http2';
import type { Duplex } from 'node:stream';
import type { Hono } from 'hono';
import type { RealtimeService } from '@auction-ops/realtime';
import type { AppEnv } from '../context.js';

export function acceptWebSocketUpgrades(
  server: Server | Http2SecureServer,
  app: Hono<AppEnv>,
  realtime: RealtimeService,
): void {
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    void upgrade(req, socket, head).catch(() => socket.destroy());
  });

  async function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    socket.on('error', destroyOnError);
    let taken = false;
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined || name.startsWith(':')) continue;
      for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
    }
    const request = new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, { headers });
    const response = await app.fetch(request, {
      incoming: req,
      realtimeUpgrade: (context) => {
        taken = true;
        realtime.handleUpgrade(req, socket, head, context);
      },
    });
    if (taken) return;
    const body = Buffer.from(await response.arrayBuffer());
    const lines = [`HTTP/1.1 ${response.status} ${response.statusText || 'Error'}`];
    response.headers.forEach((value, name) => {
      if (name !== 'content-length' && name !== 'transfer-encoding') lines.push(`${name}: ${value}`);
    });
    lines.push(`content-length: ${body.length}`, 'connection: close');
    socket.end(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), body]));
  }
}

/**
 * A socket's error listener that captures nothing: the listener stays on the socket for its whole life (a
 * WebSocket's, hours), and an arrow function written inside `upgrade` would share that call's scope, keeping the
 * upgrade request, its headers and `head` alive with it: a few kilobytes for every open WebSocket.
 */
function destroyOnError(this: Duplex): void {
  this.destroy();
}
