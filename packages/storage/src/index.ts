// @auction-ops/storage: the storage schema, backends (filesystem, S3-compatible) and the object service.
export { storageMigrations } from './migrations.js';
export { createStorageService, type StorageService, type StorageServiceOptions } from './storage-service.js';
export { StorageError, errors as storageErrors, toStorageError } from './storage-errors.js';
export { callerFromClaims, ANON, SERVICE, type Caller, type RequestRole } from './caller-transaction.js';
export { parseObjectTail, checkObjectName, checkBucketId, OBJECT_ROUTE_NAMES, type ObjectRef } from './object-path.js';
export { readUploadBody, type UploadBody } from './upload-body.js';
export { parseRange, type ByteRange } from './range-header.js';
export { infoBody, type ObjectRow } from './object-row.js';
export type { UploadMode } from './object-write-service.js';
export type { ObjectAccess, BucketRow, ListOptions } from './object-read-service.js';
export type { ListV2Result } from './object-list-v2.js';
export type { StorageBackend } from './storage-backend.js';
export type { BucketListOptions } from './bucket-service.js';
export { createFsBackend } from './fs-backend.js';
// The S3 backend is '@auction-ops/storage/s3': the AWS SDK it loads adds about 10 MB to a process that stores files.
export type { S3BackendOptions } from './s3-backend.js';
export { createUploadUrlSigner, type UploadGrant } from './signed-url-token.js';
export {
  sweepOrphans,
  scheduleSweep,
  type SweepOptions,
  type SweepResult,
  type SweepSchedule,
} from './orphan-sweep.js';
export { TusUploadService, type TusCreate } from './tus/tus-upload-service.js';
export type { TusState } from './tus/tus-upload-bytes.js';
export { parseUploadMetadata, parseTusInteger, checkTusResumable, TUS_VERSION } from './tus/tus-headers.js';
export {
  ImageRenderService,
  type ImageTransformSettings,
  type RenderRequest,
  type Rendering,
} from './transform/render-service.js';
export { RenderBusyError } from './transform/render-errors.js';
export type { TransformOptions } from './transform/transform-options.js';
