// /render/image: transformed images (storage-js's getPublicUrl, download and createSignedUrl with `transform`).
// The same lookups as plain downloads decide access: a public bucket, the caller's row-level security, or a
// signed token, whose transformation is fixed by the signer and wins over the query string.
import { Hono, type Context } from 'hono';
import {
  RenderBusyError,
  storageErrors,
  type ObjectRow,
  type StorageService,
  type TransformOptions,
} from '@auction-ops/storage';
import type { AppEnv } from '../../context.js';
import { takeGatewayHeaders } from '../../middleware/response-headers.js';
import { attachment, etagMatches } from './download-response.js';
import { callerOf, objectRefAfter } from './storage-request.js';

async function renderResponse(
  c: Context<AppEnv>,
  service: StorageService,
  row: ObjectRow,
  options: TransformOptions,
): Promise<Response> {
  const request = { row, options, accept: c.req.header('accept') };
  const described = service.images.describe(request);
  // A plain header object keeps node-server on its fast path (no Headers object built and copied per render).
  const headers: Record<string, string> = {
    'cache-control': row.metadata.cacheControl,
    etag: described.etag,
    'last-modified': new Date(row.metadata.lastModified).toUTCString(),
    // With no format asked for, the Accept header picks the output: shared caches must key on it, and on Origin,
    // which the gateway's CORS headers echo.
    vary: 'Accept, Origin',
    'x-content-type-options': 'nosniff',
    'x-transformations': service.images.transformationsHeader(options),
  };
  const download = c.req.query('download');
  if (download !== undefined) headers['content-disposition'] = attachment(download || row.name.split('/').pop()!);
  // The gateway's headers (request id, CORS) join only an answer: an error thrown below gets them from the gateway.
  const answer = (status: number, body: Buffer | null) => {
    takeGatewayHeaders(c, headers);
    return new Response(body, { status, headers });
  };
  const ifNoneMatch = c.req.header('if-none-match');
  if (ifNoneMatch && etagMatches(ifNoneMatch, described.etag)) return answer(304, null);
  try {
    const rendered = await service.images.render(request, described);
    headers['content-type'] = rendered.contentType;
    headers['content-length'] = String(rendered.bytes.length);
    return answer(200, c.req.method === 'HEAD' ? null : rendered.bytes);
  } catch (error) {
    if (error instanceof RenderBusyError) c.header('Retry-After', String(error.retryAfterSeconds));
    throw error;
  }
}

export function renderRoutes(service: StorageService): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { reads, images } = service;
  const queryOptions = (c: Context<AppEnv>) => images.optionsFromQuery((name) => c.req.query(name));

  app.on(['GET', 'HEAD'], '/public/*', async (c) => {
    const options = queryOptions(c);
    const row = await reads.findObject({ kind: 'public' }, objectRefAfter(c, '/render/image/public/'));
    return renderResponse(c, service, row, options);
  });
  app.on(['GET', 'HEAD'], '/authenticated/*', async (c) => {
    const options = queryOptions(c);
    const ref = objectRefAfter(c, '/render/image/authenticated/');
    const row = await reads.findObject({ kind: 'caller', caller: callerOf(c) }, ref);
    return renderResponse(c, service, row, options);
  });
  app.on(['GET', 'HEAD'], '/sign/*', async (c) => {
    const token = c.req.query('token');
    if (!token) throw storageErrors.invalidRequest('Missing token');
    const row = await reads.findObject({ kind: 'signed', token }, objectRefAfter(c, '/render/image/sign/'));
    return renderResponse(c, service, row, images.optionsFromObject(reads.signedTransform(token) ?? {}));
  });
  return app;
}
