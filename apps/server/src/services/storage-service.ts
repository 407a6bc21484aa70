// The storage service from configuration: the filesystem backend under DATA_DIR or an S3-compatible one, the
// size limit and the orphan sweep.
import { join } from 'node:path';
import { availableParallelism } from 'node:os';
import { archivingBackend, resolveTarget } from '@auction-ops/backups';
import { createStorageService, type StorageService } from '@auction-ops/storage';
import type { ServerContext } from '../context.js';

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

function imageSettings(config: ServerContext['config']) {
  return {
    cacheDir: join(config.DATA_DIR, 'storage', 'render-cache'),
    cacheMaxBytes: config.STORAGE_TRANSFORM_CACHE_BYTES,
    maxInputBytes: config.STORAGE_TRANSFORM_MAX_INPUT_BYTES,
    maxInputPixels: config.STORAGE_TRANSFORM_MAX_INPUT_PIXELS,
    maxDimension: config.STORAGE_TRANSFORM_MAX_DIMENSION,
    concurrency: config.STORAGE_TRANSFORM_CONCURRENCY || availableParallelism(),
    maxWaiting: config.STORAGE_TRANSFORM_QUEUE,
  };
}

export function createConfiguredStorage(ctx: ServerContext): Promise<StorageService> {
  const backupTarget = ctx.config.BACKUP_TARGET ? resolveTarget(ctx.config.BACKUP_TARGET) : undefined;
  return createStorageService({
    sql: ctx.sql,
    root: join(ctx.config.DATA_DIR, 'storage'),
    backend: backendOptions(ctx.config),
    fileSizeLimit: ctx.config.STORAGE_FILE_SIZE_LIMIT,
    jwtSecret: ctx.jwtSecret,
    sweep: {
      intervalMs: ctx.config.STORAGE_ORPHAN_SWEEP_SECONDS * 1000,
      graceMs: ctx.config.STORAGE_ORPHAN_GRACE_SECONDS * 1000,
    },
    tus: {
      expirySeconds: ctx.config.STORAGE_TUS_EXPIRY_SECONDS,
      sweepIntervalMs: ctx.config.STORAGE_TUS_SWEEP_SECONDS * 1000,
    },
    log: (message, fields) => ctx.log.warn(message, fields),
    images: imageSettings(ctx.config),
    etagAlgorithm: ctx.config.STORAGE_FILE_ETAG_ALGORITHM,
    floor: ctx.diskFloor,
    // Objects are archived as they are written, with an external database too (docs/backups.md).
    wrapBackend: backupTarget
      ? (backend) => archivingBackend(backend, backupTarget, (message, fields) => ctx.log.error(message, fields))
      : undefined,
  });
}
