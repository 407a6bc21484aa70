// Streams an object to the client with the headers from its upload: Content-Length, ETag, Last-Modified,
// Cache-Control; If-None-Match -> 304, Range -> 206; ?download[=name] -> Content-Disposition attachment.
import type { ServerResponse } from 'node:http';
import { pipeline, type Readable } from 'node:stream';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { Context } from 'hono';
import { parseRange, toStorageError, type ObjectRow, type StorageService } from '@auction-ops/storage';
import type { AppEnv } from '../../context.js';
import type { Logger } from '../../logger.js';
import { takeGatewayHeaders } from '../../middleware/response-headers.js';

export function etagMatches(header: string, etag: string): boolean {
  const bare = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim() === '*' || bare(tag) === bare(etag));
}

export function attachment(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/**
 * The object's bytes, or its 304, 416 and HEAD answers. The bytes are piped into Node's response (there is one for
 * every request but app.request() in tests): a web stream between them cost several promises per 64 KB chunk.
 * The headers are a plain object that the gateway's join (see response-headers.ts).
 */
export async function objectResponse(
  c: Context<AppEnv>,
  service: StorageService,
  row: ObjectRow,
  log: Logger,
): Promise<Response> {
  const meta = row.metadata;
  const headers: Record<string, string> = {
    'content-type': meta.mimetype,
    'cache-control': meta.cacheControl,
    etag: meta.eTag,
    'last-modified': new Date(meta.lastModified).toUTCString(),
    'accept-ranges': 'bytes',
    // Stored bytes are served with their recognised type only; never let a browser guess another one.
    'x-content-type-options': 'nosniff',
  };
  const answer = (status: number, body: string | ReadableStream<Uint8Array> | null) => {
    takeGatewayHeaders(c, headers);
    return new Response(body, { status, headers });
  };
  const download = c.req.query('download');
  if (download !== undefined) headers['content-disposition'] = attachment(download || row.name.split('/').pop()!);
  const ifNoneMatch = c.req.header('if-none-match');
  if (ifNoneMatch && etagMatches(ifNoneMatch, meta.eTag)) return answer(304, null);
  const ifRange = c.req.header('if-range');
  let range: ReturnType<typeof parseRange> | undefined;
  try {
    range = ifRange && ifRange.trim() !== meta.eTag ? undefined : parseRange(c.req.header('range'), meta.size);
  } catch (error) {
    const failure = toStorageError(error);
    headers['content-range'] = `bytes */${meta.size}`;
    headers['content-type'] = 'application/json';
    return answer(failure.status, JSON.stringify(failure.toBody()));
  }
  if (range) headers['content-range'] = `bytes ${range.start}-${range.end}/${meta.size}`;
  headers['content-length'] = String(range ? range.end - range.start + 1 : meta.size);
  const status = range ? 206 : 200;
  if (c.req.method === 'HEAD') return answer(status, null);
  const bytes = await service.reads.openBytes(row, range);
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  if (!outgoing || outgoing.headersSent) return answer(status, pullStream(bytes));
  takeGatewayHeaders(c, headers);
  outgoing.writeHead(status, headers);
  pipeline(bytes, outgoing, (error) => {
    // A client that went away is not a failure; a read that failed has cut the answer short (its length was sent).
    if (error && !CLIENT_GONE.has((error as NodeJS.ErrnoException).code ?? '')) {
      log.error('storage download failed', { id: c.get('requestId'), error: error.message });
    }
  });
  return alreadySent(status);
}

const CLIENT_GONE = new Set(['ERR_STREAM_PREMATURE_CLOSE', 'ECONNRESET', 'EPIPE']);

// node-server writes nothing for a web Response carrying its "already sent" header. Made with the runtime's own
// Response class (node-server replaces the global one with a class it would answer from), and with the real
// status, which the request log and tracing read.
const WebResponse = RESPONSE_ALREADY_SENT.constructor as typeof Response;
const alreadySent = (status: number) => new WebResponse(null, { status, headers: RESPONSE_ALREADY_SENT.headers });

/**
 * A web stream that reads the next chunk only when the consumer asks for it (highWaterMark 0). Readable.toWeb
 * on Node 20 reads ahead without regard to the socket, which holds whole files in memory on slow clients.
 */
function pullStream(source: Readable): ReadableStream<Uint8Array> {
  const chunks = source[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const next = await chunks.next();
          if (next.done) controller.close();
          else controller.enqueue(next.value as Uint8Array);
        } catch (error) {
          controller.error(error);
        }
      },
      cancel() {
        source.destroy();
      },
    },
    { highWaterMark: 0 },
  );
}
