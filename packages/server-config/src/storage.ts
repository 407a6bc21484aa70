// Storage (/storage/v1): where object bytes live, size limits, the orphan sweep, the S3 backend.
import * as v from 'valibot';
import { bool, url, nonEmpty, positiveInt, wholeNumber } from './fields.js';

export const storageSettings = {
  STORAGE_BACKEND: v.optional(v.picklist(['fs', 's3'], 'must be fs or s3'), 'fs'),
  STORAGE_FILE_SIZE_LIMIT: v.optional(positiveInt, String(10 * 1024 * 1024)),
  // ETags: the MD5 of the bytes (as S3 gives them), or, saving the hashing, the time of writing and the size
  // (Supabase's storage has the same setting for its file backend; here it applies to either backend).
  STORAGE_FILE_ETAG_ALGORITHM: v.optional(v.picklist(['md5', 'mtime'], 'must be md5 or mtime'), 'md5'),
  // Orphaned bytes (a crash between placing an upload and its commit): swept at start and every N seconds
  // (0: never), only keys older than the grace period, which must exceed any write transaction.
  STORAGE_ORPHAN_SWEEP_SECONDS: v.optional(wholeNumber, '3600'),
  STORAGE_ORPHAN_GRACE_SECONDS: v.optional(positiveInt, '3600'),
  // Resumable (TUS) uploads: an upload lives this long after its last chunk; expired ones are swept every N seconds.
  STORAGE_TUS_EXPIRY_SECONDS: v.optional(positiveInt, String(24 * 3600)),
  STORAGE_TUS_SWEEP_SECONDS: v.optional(wholeNumber, '600'),
  S3_ENDPOINT: v.optional(url),
  S3_BUCKET: v.optional(nonEmpty),
  S3_REGION: v.optional(nonEmpty, 'us-east-1'),
  S3_ACCESS_KEY_ID: v.optional(nonEmpty),
  S3_SECRET_ACCESS_KEY: v.optional(nonEmpty),
  S3_FORCE_PATH_STYLE: v.optional(bool, 'false'),
};
