// Streams an object to the client with the headers from its upload: Content-Length, ETag, Last-Modified,
// Cache-Control; If-None-Match -> 304, Range -> 206; ?download[=name] -> Content-Disposition attachment.
import type { Readable } from 'node:stream';
import type { Context } from 'hono';
import { parseRange, toStorageError, type ObjectRow, type StorageService } from '@auction-ops/storage';
import type { AppEnv } from '../../context.js';

export function etagMatches(header: string, etag: string): boolean {
  const bare = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim() === '*' || bare(tag) === bare(etag));
}

export function attachment(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

export async function objectResponse(c: Context<AppEnv>, service: StorageService, row: ObjectRow): Promise<Response> {
  const meta = row.metadata;
  const headers = new Headers({
    'Content-Type': meta.mimetype,
    'Cache-Control': meta.cacheControl,
    ETag: meta.eTag,
    'Last-Modified': new Date(meta.lastModified).toUTCString(),
    'Accept-Ranges': 'bytes',
    // Stored bytes are served with their recognised type only; never let a browser guess another one.
    'X-Content-Type-Options': 'nosniff',
  });
  const download = c.req.query('download');
  if (download !== undefined) headers.set('Content-Disposition', attachment(download || row.name.split('/').pop()!));
  const ifNoneMatch = c.req.header('if-none-match');
  if (ifNoneMatch && etagMatches(ifNoneMatch, meta.eTag)) return new Response(null, { status: 304, headers });
  const ifRange = c.req.header('if-range');
  let range: ReturnType<typeof parseRange> | undefined;
  try {
    range = ifRange && ifRange.trim() !== meta.eTag ? undefined : parseRange(c.req.header('range'), meta.size);
  } catch (error) {
    const failure = toStorageError(error);
    headers.set('Content-Range', `bytes */${meta.size}`);
    headers.set('Content-Type', 'application/json');
    return new Response(JSON.stringify(failure.toBody()), { status: failure.status, headers });
  }
  if (range) headers.set('Content-Range', `bytes ${range.start}-${range.end}/${meta.size}`);
  headers.set('Content-Length', String(range ? range.end - range.start + 1 : meta.size));
  const status = range ? 206 : 200;
  if (c.req.method === 'HEAD') return new Response(null, { status, headers });
  const bytes = await service.reads.openBytes(row, range);
  return new Response(pullStream(bytes), { status, headers });
}

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
