// Uploads (create, upsert, update) and resumable uploads' commits, keeping rows and bytes in step. Removals are
// object-remove-service.ts, moves and copies object-transfer-service.ts; the commit itself object-version-commit.ts.
//
// The protocol (both backends): the body is spooled to a temp file and validated (size, type) with no
// transaction open; then one transaction under the caller's role writes the row (RLS decides) with a fresh
// version while the spool file's fsync finishes, places the fsynced bytes under `<bucket>/<version>` (rename or
// PutObject), and commits. A row is therefore never committed without its bytes. If anything fails, the
// transaction rolls back and the new version's bytes and the spool file are removed. Bytes replaced by an
// upsert, or of deleted rows, are removed only after the commit, so a rollback never loses the bytes a committed
// row still points at. The one window left is a crash between placing bytes and commit (or before post-commit
// removal): that leaves unreferenced bytes, never a row without bytes; keys are versions, so the orphan sweep
// (orphan-sweep.ts) finds them.
//
// Below DATA_DIR's free-space floor an upload is refused with 507 before a byte is spooled; a disk that fills
// during the write (ENOSPC) answers 507 too, and the protocol above leaves no partial object behind.
import { unlink } from 'node:fs/promises';
import type postgres from 'postgres';
import type { Caller } from './caller-transaction.js';
import { decideType, precheckDeclaredType } from './content-type-policy.js';
import { DiskSpaceGuard, type SpaceFloor } from './disk-space-guard.js';
import { type EtagAlgorithm, mtimeEtag } from './etag-algorithm.js';
import { checkObjectName, type ObjectRef } from './object-path.js';
import type { ObjectReadService } from './object-read-service.js';
import type { ObjectMetadata } from './object-row.js';
import { type UploadMode, VersionCommitter } from './object-version-commit.js';
import type { StorageBackend, StorageLog } from './storage-backend.js';
import { errors } from './storage-errors.js';
import type { UploadBody } from './upload-body.js';
import { sizeLimitOf } from './upload-size-limit.js';
import { spoolUpload } from './upload-spool.js';

export type { UploadMode } from './object-version-commit.js';

interface WriteServiceOptions {
  sql: postgres.Sql;
  backend: StorageBackend;
  reads: ObjectReadService;
  tmpDir: string;
  fileSizeLimit: number;
  log: StorageLog;
  /** How ETags are made (etag-algorithm.ts); md5 unless given. */
  etagAlgorithm?: EtagAlgorithm;
  /** DATA_DIR's free-space floor; without it only a disk that is actually full refuses (507). */
  floor?: SpaceFloor;
}

const ignoreMissing = (error: NodeJS.ErrnoException) => {
  if (error.code !== 'ENOENT') throw error;
};

export class ObjectWriteService {
  /** The row-and-bytes commit, shared with copies and moves (object-transfer-service.ts). */
  readonly versions: VersionCommitter;
  /** The free-space floor's check, shared with resumable uploads and transfers. */
  readonly space: DiskSpaceGuard;

  constructor(private readonly o: WriteServiceOptions) {
    this.versions = new VersionCommitter(o);
    this.space = new DiskSpaceGuard(o.floor);
  }

  async upload(
    caller: Caller,
    ref: ObjectRef,
    body: UploadBody,
    mode: UploadMode,
    /** Runs first in the committing transaction (a resumable upload ends itself there, see tus/). */
    beforeWrite?: (tx: postgres.ReservedSql) => Promise<void>,
  ): Promise<{ Key: string; Id: string }> {
    let spoolFile: string | undefined;
    try {
      checkObjectName(ref.name);
      const bucket = await this.o.reads.uploadLimits(ref.bucket);
      const limit = sizeLimitOf(bucket, this.o.fileSizeLimit);
      if (body.contentLength !== undefined && body.contentLength > limit) throw errors.tooLarge();
      precheckDeclaredType(body.declaredType, bucket.allowed_mime_types);
      // A body of unknown length may be as large as the limit.
      this.space.admit(body.contentLength ?? limit);
      return await this.space.watch(async () => {
        const spooled = await spoolUpload(body.source, {
          tmpDir: this.o.tmpDir,
          limit,
          declaredType: body.declaredType,
          allowedTypes: bucket.allowed_mime_types,
          contentCheck: bucket.content_check,
          md5: this.o.etagAlgorithm !== 'mtime',
        });
        spoolFile = spooled.file;
        const { file, size, md5, mimetype, durable } = spooled;
        const bytes = { file, size, eTag: md5 === undefined ? undefined : `"${md5}"`, mimetype, durable };
        return await this.commitBytes(caller, ref, mode, bytes, body, beforeWrite);
      });
    } catch (error) {
      // A refused body may still be arriving; make sure it is consumed or dropped, never left hanging.
      if (!body.source.readableEnded && !body.source.destroyed) body.source.resume();
      throw error;
    } finally {
      // Gone already when the backend renamed it into place; unlink is one syscall where rm is two.
      if (spoolFile) await unlink(spoolFile).catch(ignoreMissing);
    }
  }

  /**
   * Commits bytes already written, fsynced and hashed in a local file (a resumable upload staged in place): the
   * bucket's size limit and types are checked again (the type from `head`, the file's first bytes), then the
   * row is written under RLS and the file placed with `backend.put` in one transaction, as for an upload.
   */
  async commitFile(
    caller: Caller,
    ref: ObjectRef,
    file: { path: string; size: number; head: Buffer; eTag?: string },
    body: Pick<UploadBody, 'declaredType' | 'cacheControl' | 'userMetadata'>,
    mode: UploadMode,
    beforeWrite?: (tx: postgres.ReservedSql) => Promise<void>,
  ): Promise<{ Key: string; Id: string }> {
    checkObjectName(ref.name);
    const bucket = await this.o.reads.uploadLimits(ref.bucket);
    if (file.size > sizeLimitOf(bucket, this.o.fileSizeLimit)) throw errors.tooLarge();
    precheckDeclaredType(body.declaredType, bucket.allowed_mime_types);
    const mimetype = decideType(file.head, body.declaredType, bucket.allowed_mime_types, bucket.content_check);
    const bytes = { file: file.path, size: file.size, eTag: file.eTag, mimetype };
    // The bytes are on the disk already (placing them is a rename): the floor is not asked again.
    return this.space.watch(() => this.commitBytes(caller, ref, mode, bytes, body, beforeWrite));
  }

  /** Whether the caller may write this object now (object-version-commit.ts). */
  checkWritable(caller: Caller, ref: ObjectRef, mode: UploadMode): Promise<void> {
    return this.versions.checkWritable(caller, ref, mode);
  }

  /** The row and the bytes of a checked upload, committed together (see the top of this file). */
  private commitBytes(
    caller: Caller,
    ref: ObjectRef,
    mode: UploadMode,
    /**
     * `durable` (a spooled upload still being fsynced) is awaited after the row is written, before placing. Without
     * an `eTag` (STORAGE_FILE_ETAG_ALGORITHM=mtime) it is made from the time of writing, the size and the version.
     */
    bytes: { file: string; size: number; eTag?: string; mimetype: string; durable?: Promise<void> },
    body: Pick<UploadBody, 'cacheControl' | 'userMetadata'>,
    beforeWrite?: (tx: postgres.ReservedSql) => Promise<void>,
  ): Promise<{ Key: string; Id: string }> {
    const writtenAt = Date.now();
    const metadata: Omit<ObjectMetadata, 'eTag'> = {
      size: bytes.size,
      mimetype: bytes.mimetype,
      cacheControl: body.cacheControl,
      lastModified: new Date(writtenAt).toISOString(),
      contentLength: bytes.size,
      httpStatusCode: 200,
    };
    return this.versions.commitVersion(caller, ref, mode, async (tx, key, version) => {
      await beforeWrite?.(tx);
      const eTag = bytes.eTag ?? mtimeEtag(writtenAt, bytes.size, version);
      const meta = { ...metadata, eTag };
      const written = await this.versions.writeRow(tx, caller, ref, version, meta, body.userMetadata, mode);
      await bytes.durable;
      await this.o.backend.put(key, bytes.file, { size: bytes.size, contentType: bytes.mimetype });
      return written;
    });
  }
}
