// /realtime/v1: the WebSocket endpoint. The upgrade request runs through the gateway like any request (HTTPS
// rule, API key from the query string, client IP); this route then hands the connection to realtime.
import { Hono } from 'hono';
import type { AppEnv } from '../context.js';

export function realtimeRoutes(): Hono<AppEnv> {
  return new Hono<AppEnv>().get('/websocket', (c) => {
    const upgrade = c.env?.realtimeUpgrade;
    const claims = c.get('claims');
    if (!upgrade || !claims) {
      c.header('Upgrade', 'websocket');
      return c.json({ message: 'Upgrade Required: connect with a WebSocket' }, 426);
    }
    upgrade({ apiKeyClaims: claims, clientIp: c.get('clientIp') });
    return c.body(null, 200);
  });
}
