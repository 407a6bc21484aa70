// /storage/v1: builds the storage service from configuration (filesystem or S3-compatible backend) and mounts
// the bucket and object routes. Errors render as {statusCode, error, message} with the real HTTP status.
import { join } from 'node:path';
import { Hono } from 'hono';
import { createStorageService, toStorageError } from '@auction-ops/storage';
import type { AppEnv, Mounted, ServerContext } from '../context.js';
import { bucketRoutes } from './storage/bucket-routes.js';
import { objectRoutes } from './storage/object-routes.js';

function backendOptions(config: ServerContext['config']) {
  if (config.STORAGE_BACKEND !== 's3') return { kind: 'fs' as const };
  if (!config.S3_BUCKET) throw new Error('invalid configuration: S3_BUCKET is required when STORAGE_BACKEND=s3');
  return {
    kind: 's3' as const,
    bucket: config.S3_BUCKET,
    region: config.S3_REGION,
    endpoint: config.S3_ENDPOINT,
    forcePathStyle: config.S3_FORCE_PATH_STYLE,
    accessKeyId: config.S3_ACCESS_KEY_ID,
    secretAccessKey: config.S3_SECRET_ACCESS_KEY,
  };
}

export async function storageRoutes(ctx: ServerContext): Promise<Mounted> {
  const service = await createStorageService({
    sql: ctx.sql,
    root: join(ctx.config.DATA_DIR, 'storage'),
    backend: backendOptions(ctx.config),
    fileSizeLimit: ctx.config.STORAGE_FILE_SIZE_LIMIT,
    jwtSecret: ctx.jwtSecret,
    sweep: {
      intervalMs: ctx.config.STORAGE_ORPHAN_SWEEP_SECONDS * 1000,
      graceMs: ctx.config.STORAGE_ORPHAN_GRACE_SECONDS * 1000,
    },
    log: (message, fields) => ctx.log.warn(message, fields),
  });
  const app = new Hono<AppEnv>();
  app.route('/bucket', bucketRoutes(service));
  app.route('/object', objectRoutes(service));
  app.notFound((c) => c.json({ statusCode: '404', error: 'not_found', message: 'Route not found' }, 404));
  app.onError((error, c) => {
    const failure = toStorageError(error);
    if (failure.status >= 500) {
      const cause = failure.cause instanceof Error ? failure.cause : error;
      ctx.log.error('storage request failed', { id: c.get('requestId'), error: cause.message, stack: cause.stack });
    }
    return c.json(failure.toBody(), failure.status as 400);
  });
  return { app, close: () => service.close() };
}
