// /realtime/v1: the WebSocket endpoint, and broadcasts over HTTP. The upgrade request runs through the gateway like
// any request (HTTPS rule, API key from the query string, client IP); this route then hands the connection to
// realtime. POST /api/broadcast takes realtime-js's send() before a join ({messages: [...]}); its per-topic form
// /api/broadcast/<topic>/events/<event> takes httpSend() (the payload as the body, JSON or bytes, and persist).
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { HttpBroadcast, RealtimeService } from '@auction-ops/realtime';
import type { AppEnv } from '../context.js';
import { parseBatch, parsePersist } from './realtime-broadcast-body.js';

export function realtimeRoutes(realtime: RealtimeService, maxPayloadBytes: number): Hono<AppEnv> {
  const limit = bodyLimit({
    maxSize: maxPayloadBytes + 64 * 1024,
    onError: (c) => c.json({ message: `Payload too large: at most ${maxPayloadBytes} bytes` }, 413),
  });

  async function send(c: Context<AppEnv>, messages: HttpBroadcast[], persist?: { ttlSeconds?: number }) {
    const claims = c.get('claims');
    const refused = c.get('authError');
    if (refused || !claims) return c.json({ message: `Invalid token: ${refused?.message ?? 'missing'}` }, 401);
    const result = await realtime.broadcastOverHttp({ claims, clientIp: c.get('clientIp'), messages, persist });
    return result.status === 202 ? c.body(null, 202) : c.json({ message: result.message }, result.status);
  }

  return new Hono<AppEnv>()
    .get('/websocket', (c) => {
      const upgrade = c.env?.realtimeUpgrade;
      const claims = c.get('claims');
      if (!upgrade || !claims) {
        c.header('Upgrade', 'websocket');
        return c.json({ message: 'Upgrade Required: connect with a WebSocket' }, 426);
      }
      upgrade({ apiKeyClaims: claims, clientIp: c.get('clientIp') });
      return c.body(null, 200);
    })
    .post('/api/broadcast', limit, async (c) => {
      const messages = parseBatch(await c.req.text());
      if (typeof messages === 'string') return c.json({ message: messages }, 422);
      return send(c, messages);
    })
    .post('/api/broadcast/:topic/events/:event', limit, async (c) => {
      const persist = parsePersist(new URL(c.req.url).searchParams);
      if (typeof persist === 'string') return c.json({ message: persist }, 422);
      const isBytes = c.req.header('content-type')?.startsWith('application/octet-stream') === true;
      let payload: unknown;
      if (isBytes) payload = { bytes: Buffer.from(await c.req.arrayBuffer()) };
      else {
        try {
          payload = JSON.parse(await c.req.text());
        } catch {
          return c.json({ message: 'Invalid broadcast: the body is not JSON' }, 422);
        }
      }
      const message = {
        topic: c.req.param('topic'),
        event: c.req.param('event'),
        payload,
        private: c.req.query('private') === 'true',
      };
      return send(c, [message], persist);
    });
}
