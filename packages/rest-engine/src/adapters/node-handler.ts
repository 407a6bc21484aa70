// The engine as a node:http request listener and Express/Connect middleware. A body that a body parser has
// already read (`req.body`) is used as it is; otherwise the stream is read up to the limit, and an answer given
// before all of it arrived closes the connection without a reset (lingering-close.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RestEngine } from '../engine.js';
import { type AdapterOptions, answer, type Claims, outsideMount, resolveAdapterOptions } from './adapter-options.js';
import { lingerOnEarlyClose } from './lingering-close.js';
import { BodyTooLargeError, type BodyInput, readBody } from '../request-input.js';

type NodeRequest = IncomingMessage & { body?: BodyInput; originalUrl?: string; claims?: Claims };
type Next = (error?: unknown) => void;

export type NodeHandler = (req: IncomingMessage, res: ServerResponse, next?: Next) => Promise<void>;

export function createNodeHandler(engine: RestEngine, options: AdapterOptions = {}): NodeHandler {
  const adapter = resolveAdapterOptions(engine, options);
  return async (incoming, res, next) => {
    const req = incoming as NodeRequest;
    if (!req.complete) lingerOnEarlyClose(req);
    try {
      const found = await answer(engine, adapter, {
        method: req.method ?? 'GET',
        target: req.url ?? '/',
        headers: req.headers,
        body: async (limit, headers) => {
          // Express's parsers leave {} when they did not read the body: the stream is then still unread.
          if (req.body !== undefined && !(req.readableEnded === false && isEmptyObject(req.body)))
            return readBody(req.body, limit);
          if (Number(headers['content-length'] ?? 0) > limit) throw new BodyTooLargeError(limit);
          return readBody(req, limit);
        },
      });
      if (found === null && next) return next();
      const out = found ?? outsideMount();
      // With a length, Node writes the head and the body in one write, without chunk framing.
      const payload = out.bytes ?? out.body;
      if (payload !== null) out.headers['content-length'] = byteLength(payload);
      res.writeHead(out.status, out.headers);
      res.end(payload ?? undefined);
    } catch (e) {
      if (next) return next(e);
      const body = JSON.stringify({ code: 'PGRST000', details: null, hint: null, message: 'Internal server error' });
      if (!res.headersSent)
        res.writeHead(500, { 'content-type': 'application/json; charset=utf-8', 'content-length': byteLength(body) });
      res.end(body);
    }
  };
}

const byteLength = (body: string | Uint8Array): string => String(Buffer.byteLength(body));

const isEmptyObject = (v: unknown): boolean =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v as object).length === 0;
