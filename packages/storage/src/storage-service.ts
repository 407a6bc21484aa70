// Assembles the storage service: the chosen backend, the read and write services, and the spool directory.
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type postgres from 'postgres';
import { BucketService } from './bucket-service.js';
import { createFsBackend } from './fs-backend.js';
import { ObjectReadService } from './object-read-service.js';
import { ObjectRemoveService } from './object-remove-service.js';
import { ObjectTransferService } from './object-transfer-service.js';
import { ObjectWriteService } from './object-write-service.js';
import type { SpaceFloor } from './disk-space-guard.js';
import type { S3BackendOptions } from './s3-backend.js';
import { scheduleSweep, type SweepSchedule } from './orphan-sweep.js';
import { SignedUploadService } from './signed-upload-service.js';
import { createSignedUrlSigner, createUploadUrlSigner } from './signed-url-token.js';
import type { StorageBackend } from './storage-backend.js';
import { scheduleTusSweep, type TusSweepSchedule } from './tus/tus-expiry-sweep.js';
import { TusStaging } from './tus/tus-staging.js';
import { TusUploadService } from './tus/tus-upload-service.js';
import { ImageRenderService, type ImageTransformSettings } from './transform/render-service.js';
import type { EtagAlgorithm } from './etag-algorithm.js';

export interface StorageServiceOptions {
  sql: postgres.Sql;
  /** DATA_DIR/storage: spool files, and the objects themselves with the filesystem backend. */
  root: string;
  backend: { kind: 'fs' } | ({ kind: 's3' } & S3BackendOptions);
  fileSizeLimit: number;
  jwtSecret: string;
  /** The orphan-bytes sweep: at start and every intervalMs (0: never), keys older than graceMs only. */
  sweep?: { intervalMs: number; graceMs: number };
  log?: (message: string, fields: Record<string, unknown>) => void;
  /** Resumable uploads: seconds an upload lives after its last chunk, and how often expired ones are swept. */
  tus?: { expirySeconds: number; sweepIntervalMs: number };
  /** Wraps the backend, e.g. to archive every stored version as it is written (BACKUP_TARGET). */
  wrapBackend?: (backend: StorageBackend) => StorageBackend;
  /** Image transformations (/render/image): limits, cache and concurrency. */
  images: ImageTransformSettings;
  /** How ETags are made (etag-algorithm.ts); md5 unless given. */
  etagAlgorithm?: EtagAlgorithm;
  /** DATA_DIR's free-space floor (DISK_FREE_FLOOR_MB): uploads under it are refused with 507. */
  floor?: SpaceFloor;
}

export interface StorageService {
  backend: StorageBackend;
  buckets: BucketService;
  reads: ObjectReadService;
  writes: ObjectWriteService;
  removals: ObjectRemoveService;
  transfers: ObjectTransferService;
  signedUploads: SignedUploadService;
  tus: TusUploadService;
  images: ImageRenderService;
  tmpDir: string;
  sweep: SweepSchedule;
  tusSweep: TusSweepSchedule;
  close(): Promise<void>;
}

const STALE_SPOOL_MS = 60 * 60 * 1000;

/** Spool files older than an hour belong to a process that died mid-upload. */
async function sweepStaleSpools(tmpDir: string): Promise<void> {
  const names = await readdir(tmpDir).catch(() => [] as string[]);
  const cutoff = Date.now() - STALE_SPOOL_MS;
  for (const name of names) {
    const file = join(tmpDir, name);
    const info = await stat(file).catch(() => undefined);
    if (info && info.mtimeMs < cutoff) await rm(file, { force: true });
  }
}

export async function createStorageService(options: StorageServiceOptions): Promise<StorageService> {
  const tmpDir = join(options.root, 'tmp');
  await sweepStaleSpools(tmpDir);
  // Loaded only when chosen (the AWS SDK).
  const base =
    options.backend.kind === 's3'
      ? (await import('./s3-backend.js')).createS3Backend(options.backend)
      : createFsBackend(options.root);
  const backend = options.wrapBackend ? options.wrapBackend(base) : base;
  const reads = new ObjectReadService(options.sql, backend, createSignedUrlSigner(options.jwtSecret));
  const log = options.log ?? (() => {});
  const writes = new ObjectWriteService({
    sql: options.sql,
    backend,
    reads,
    tmpDir,
    fileSizeLimit: options.fileSizeLimit,
    log,
    etagAlgorithm: options.etagAlgorithm,
    floor: options.floor,
  });
  const transfers = new ObjectTransferService({
    sql: options.sql,
    backend,
    reads,
    versions: writes.versions,
    space: writes.space,
    fileSizeLimit: options.fileSizeLimit,
    log,
  });
  const buckets = new BucketService(options.sql, backend, reads, log);
  const signedUploads = new SignedUploadService(writes, createUploadUrlSigner(options.jwtSecret));
  const tus = new TusUploadService({
    sql: options.sql,
    backend,
    reads,
    writes,
    tmpDir,
    fileSizeLimit: options.fileSizeLimit,
    expirySeconds: options.tus?.expirySeconds ?? 24 * 3600,
    log,
    // On the filesystem, chunks are written in place into one staging file beside the objects (a rename
    // places it); S3 keeps one part per chunk.
    staging:
      backend.kind === 'fs' ? new TusStaging(join(options.root, 'tus'), options.etagAlgorithm !== 'mtime') : undefined,
  });
  const tusSweep = scheduleTusSweep(tus, options.tus?.sweepIntervalMs ?? 0, log);
  const sweep = scheduleSweep({
    sql: options.sql,
    backend,
    log,
    intervalMs: options.sweep?.intervalMs ?? 0,
    graceMs: options.sweep?.graceMs ?? 3600_000,
  });
  return {
    backend,
    buckets,
    reads,
    writes,
    removals: new ObjectRemoveService({ sql: options.sql, backend, log }),
    transfers,
    signedUploads,
    tus,
    images: new ImageRenderService(reads, options.images, log),
    tmpDir,
    sweep,
    tusSweep,
    async close() {
      await Promise.all([sweep.stop(), tusSweep.stop()]);
      await backend.close();
    },
  };
}
