// The storage family's errors: one class rendered as {statusCode, error, message} with the real HTTP
// status, one factory per case, and the SQLSTATE -> error table for failures raised by Postgres.
import { isOutOfSpace } from '@auction-ops/database';

export class StorageError extends Error {
  override name = 'StorageError';
  constructor(
    readonly status: number,
    readonly error: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** The body storage-js reads (statusCode is a string, as in Supabase). */
  toBody(): { statusCode: string; error: string; message: string } {
    return { statusCode: String(this.status), error: this.error, message: this.message };
  }
}

export const errors = {
  invalidKey: (message = 'Invalid key') => new StorageError(400, 'InvalidKey', message),
  invalidRequest: (message: string) => new StorageError(400, 'InvalidRequest', message),
  invalidJwt: (message: string) => new StorageError(401, 'InvalidJWT', message),
  unauthorized: (message = 'new row violates row-level security policy') =>
    new StorageError(403, 'Unauthorized', message),
  objectNotFound: () => new StorageError(404, 'not_found', 'Object not found'),
  bucketNotFound: () => new StorageError(404, 'not_found', 'Bucket not found'),
  duplicate: () => new StorageError(409, 'Duplicate', 'The resource already exists'),
  // Supabase's text exactly: clients match it (the limit is in the bucket's settings).
  tooLarge: () => new StorageError(413, 'Payload too large', 'The object exceeded the maximum allowed size'),
  rangeNotSatisfiable: () => new StorageError(416, 'InvalidRange', 'The requested range is not satisfiable'),
  invalidMimeType: (message: string) => new StorageError(415, 'invalid_mime_type', message),
  uploadNotFound: () => new StorageError(404, 'not_found', 'Upload not found'),
  // TUS: the chunk does not start where the upload stands (the client should ask HEAD for the offset).
  offsetMismatch: (current: number | undefined) =>
    new StorageError(
      409,
      'Conflict',
      current === undefined ? 'The upload moved on; ask HEAD for its offset' : `Upload-Offset must be ${current}`,
    ),
  // TUS: another request is writing this upload's bytes now (it releases the claim when its body ends).
  uploadBusy: () => new StorageError(423, 'Locked', 'Another request is writing this upload; try again shortly'),
  // Under DATA_DIR's free-space floor (DISK_FREE_FLOOR_MB): the room left is PostgreSQL's, for its WAL.
  belowDiskFloor: () =>
    new StorageError(
      507,
      'InsufficientStorage',
      'Insufficient storage: free disk space on the server is below its floor; try again once space is freed',
    ),
  // The disk filled during the write (ENOSPC): nothing of the upload was kept.
  diskFull: (cause: unknown) =>
    new StorageError(
      507,
      'InsufficientStorage',
      'Insufficient storage: the server ran out of disk space; nothing of this upload was stored',
      { cause },
    ),
  notSupported: (what: string) => new StorageError(501, 'NotSupported', `${what} are not supported by this server`),
  // The database went away under the request (crash, restart, network): the same 503 the database gate answers
  // before a request starts, so clients retry instead of reading a 500 as a bug.
  databaseUnavailable: (cause: unknown) =>
    new StorageError(503, 'DatabaseError', 'The database is not reachable; try again shortly', { cause }),
  internal: (cause: unknown) => new StorageError(500, 'internal', 'Internal server error', { cause }),
};

// SQLSTATE -> storage error, for the few codes a request can legitimately cause.
const BY_SQLSTATE: Record<string, () => StorageError> = {
  '42501': () => errors.unauthorized(),
  '23505': () => errors.duplicate(),
  '23503': () => errors.bucketNotFound(),
  '23514': () => errors.invalidKey(),
  '22P02': () => errors.invalidRequest('invalid input'),
};

/**
 * A failure that says the database is gone rather than that the request is wrong: SQL states of shutdown, crash
 * and start-up (57P01-57P03), connection (08) and resources (53), and postgres.js's own socket codes (as the data
 * interface's fromDatabaseError reads them).
 */
function lostDatabase(code: string, error: unknown): boolean {
  const sqlState = /^[0-9A-Z]{5}$/.test(code) && (error as { severity?: unknown }).severity !== undefined;
  if (sqlState) return ['57P01', '57P02', '57P03'].includes(code) || code.startsWith('08') || code.startsWith('53');
  return /CONNECT|ECONN|CONNECTION|TIMEOUT/i.test(code);
}

/** Any thrown value as a StorageError (unknown failures become 500 and keep their cause for the log). */
export function toStorageError(error: unknown): StorageError {
  if (error instanceof StorageError) return error;
  if (isOutOfSpace(error)) return errors.diskFull(error);
  const code = (error as { code?: unknown } | null)?.code;
  // 42501 is both a refused policy and a missing privilege; only Postgres's text tells them apart.
  const text = (error as { message?: unknown } | null)?.message;
  if (code === '42501' && typeof text === 'string' && text.startsWith('permission denied')) {
    return new StorageError(403, 'AccessDenied', text, { cause: error });
  }
  if (typeof code === 'string' && lostDatabase(code, error)) return errors.databaseUnavailable(error);
  if (typeof code === 'string' && BY_SQLSTATE[code]) {
    const mapped = BY_SQLSTATE[code]();
    return new StorageError(mapped.status, mapped.error, mapped.message, { cause: error });
  }
  return errors.internal(error);
}
