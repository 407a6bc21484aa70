// /storage/v1: mounts the bucket and object routes over the storage service the composition root built
// (services/). Errors render as {statusCode, error, message} with the real HTTP status.
import { Hono } from 'hono';
import { isBodyBreakOff } from '../http/body-watch.js';
import { type StorageService, storageErrors, toStorageError } from '@auction-ops/storage';
import type { AppEnv, ServerContext } from '../context.js';
import { bucketRoutes } from './storage/bucket-routes.js';
import { objectRoutes } from './storage/object-routes.js';
import { tusRoutes } from './storage/tus-routes.js';
import { renderRoutes } from './storage/render-routes.js';

export function storageRoutes(ctx: ServerContext, service: StorageService): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // Public downloads trust a looked-up row for a second (ObjectReadService.findPublic): any other request may have
  // changed objects or buckets, so once it is answered this instance looks them up again.
  app.use('*', (c, next) =>
    c.req.method === 'GET' || c.req.method === 'HEAD' ? next() : next().finally(() => service.reads.forgetPublicRows()),
  );
  app.route('/bucket', bucketRoutes(service));
  app.route('/object', objectRoutes(service, ctx.log));
  app.route('/upload/resumable', tusRoutes(ctx, service));
  app.route('/render/image', renderRoutes(service));
  // storage-js's vectors and analytics clients: out of scope, answered plainly rather than as a missing route.
  app.all('/vector/*', () => {
    throw storageErrors.notSupported('Vector buckets');
  });
  app.all('/iceberg/*', () => {
    throw storageErrors.notSupported('Analytics buckets');
  });
  app.notFound((c) => c.json({ statusCode: '404', error: 'not_found', message: 'Route not found' }, 404));
  app.onError((error, c) => {
    const failure = toStorageError(error);
    // A refusal under the disk's floor is logged by the floor when free space crosses it, not per request.
    if (failure.status === 507 && failure.cause instanceof Error)
      ctx.log.warn('storage: a write failed, the disk is full', {
        id: c.get('requestId'),
        error: failure.cause.message,
      });
    // 503 is an answer, not a fault of this server: the database is away (the database gate logs that once) or the
    // transformation slots are full; one line without a stack, not an error per request.
    else if (failure.status === 503)
      ctx.log.warn('storage: unavailable', { id: c.get('requestId'), error: String(failure.cause ?? error) });
    else if (failure.status >= 500 && failure.status !== 507 && !isBodyBreakOff(failure.cause ?? error)) {
      const cause = failure.cause instanceof Error ? failure.cause : error;
      ctx.log.error('storage request failed', { id: c.get('requestId'), error: cause.message, stack: cause.stack });
    }
    return c.json(failure.toBody(), failure.status as 400);
  });
  return app;
}
