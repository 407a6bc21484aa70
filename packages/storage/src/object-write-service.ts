// Writes: upload (create, upsert, update), remove, move, copy — keeping rows and bytes in step.
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
import { randomUUID } from 'node:crypto';
import { unlink } from 'node:fs/promises';
import type postgres from 'postgres';
import { asCaller, callerUserId, type Caller } from './caller-transaction.js';
import type { ObjectMetadata, ObjectRow } from './object-row.js';
import { OBJECT_COLUMNS } from './object-row.js';
import { checkObjectName, checkObjectNames, type ObjectRef } from './object-path.js';
import type { BucketRow, ObjectReadService } from './object-read-service.js';
import { objectKey, removeQuietly, type StorageBackend, type StorageLog } from './storage-backend.js';
import { errors } from './storage-errors.js';
import { normaliseMimeType, typeAllowed } from './content-sniffer.js';
import type { UploadBody } from './upload-body.js';
import { spoolUpload } from './upload-spool.js';
import { decideType, precheckDeclaredType } from './content-type-policy.js';
import { type EtagAlgorithm, mtimeEtag } from './etag-algorithm.js';

export type UploadMode = 'create' | 'upsert' | 'update';

export interface WriteServiceOptions {
  sql: postgres.Sql;
  backend: StorageBackend;
  reads: ObjectReadService;
  tmpDir: string;
  fileSizeLimit: number;
  log: StorageLog;
  /** How ETags are made (etag-algorithm.ts); md5 unless given. */
  etagAlgorithm?: EtagAlgorithm;
}

/** A move or copy: from one bucket and name to another (the same bucket unless destinationBucket is given). */
export interface Transfer {
  fromBucket: string;
  from: string;
  toBucket: string;
  to: string;
}

const MAX_REMOVE = 1000;

const ignoreMissing = (error: NodeJS.ErrnoException) => {
  if (error.code !== 'ENOENT') throw error;
};

class RolledBack {}

/** The row an upload or copy wrote, and the version it replaced (upsert). */
interface WrittenRow {
  id: string;
  old_version: string | null;
}

export class ObjectWriteService {
  constructor(private readonly o: WriteServiceOptions) {}

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
      const limit = Math.min(bucket.file_size_limit ?? this.o.fileSizeLimit, this.o.fileSizeLimit);
      if (body.contentLength !== undefined && body.contentLength > limit) throw errors.tooLarge();
      precheckDeclaredType(body.declaredType, bucket.allowed_mime_types);
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
    const limit = Math.min(bucket.file_size_limit ?? this.o.fileSizeLimit, this.o.fileSizeLimit);
    if (file.size > limit) throw errors.tooLarge();
    precheckDeclaredType(body.declaredType, bucket.allowed_mime_types);
    const mimetype = decideType(file.head, body.declaredType, bucket.allowed_mime_types, bucket.content_check);
    const bytes = { file: file.path, size: file.size, eTag: file.eTag, mimetype };
    return this.commitBytes(caller, ref, mode, bytes, body, beforeWrite);
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
    return this.commitVersion(caller, ref, mode, async (tx, key, version) => {
      await beforeWrite?.(tx);
      const eTag = bytes.eTag ?? mtimeEtag(writtenAt, bytes.size, version);
      const written = await this.writeRow(tx, caller, ref, version, { ...metadata, eTag }, body.userMetadata, mode);
      await bytes.durable;
      await this.o.backend.put(key, bytes.file, { size: bytes.size, contentType: bytes.mimetype });
      return written;
    });
  }

  /** Writes the row of an upload under RLS; metadata null is a trial write (signed upload URLs, rolled back). */
  async writeRow(
    tx: postgres.ReservedSql,
    caller: Caller,
    ref: ObjectRef,
    version: string,
    metadata: ObjectMetadata | null,
    userMetadata: Record<string, unknown> | null,
    mode: UploadMode,
  ) {
    const owner = callerUserId(caller);
    // postgres.js serialises jsonb parameters itself: pass objects, not JSON text (which would become a string).
    const meta = tx.json((metadata ?? {}) as unknown as postgres.JSONValue);
    const user = userMetadata === null ? null : tx.json(userMetadata as postgres.JSONValue);
    if (mode !== 'create') {
      // The FROM subquery locks the current row and yields its old version in the same statement.
      const [updated] = await tx<{ id: string; old_version: string }[]>`
        update storage.objects o
        set version = ${version}, metadata = ${meta}, user_metadata = ${user}, owner_id = ${owner},
            updated_at = now(), last_accessed_at = now()
        from (select id, version from storage.objects where bucket_id = ${ref.bucket}
          and name = ${ref.name} for update) old
        where o.id = old.id
        returning o.id, old.version as old_version`;
      if (updated) return updated;
      if (mode === 'update') throw errors.objectNotFound();
    }
    const [inserted] = await tx<{ id: string; old_version: null }[]>`
      insert into storage.objects (bucket_id, name, owner_id, version, metadata, user_metadata)
      values (${ref.bucket}, ${ref.name}, ${owner}, ${version}, ${meta}, ${user})
      returning id, null::text as old_version`;
    return inserted!;
  }

  /**
   * Whether the caller may write this object now (RLS 403, duplicate 409, unknown bucket 404), by a trial row
   * write in a transaction that is always rolled back.
   */
  async checkWritable(caller: Caller, ref: ObjectRef, mode: UploadMode): Promise<void> {
    try {
      await asCaller(this.o.sql, caller, async (tx) => {
        await this.writeRow(tx, caller, ref, randomUUID(), null, null, mode);
        throw new RolledBack();
      });
    } catch (error) {
      if (!(error instanceof RolledBack)) throw error;
    }
  }

  /** An upsert that lost an insert race to a concurrent upload of the same name tries once more as an update. */
  private async retryOnRace<T>(mode: UploadMode, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (mode === 'upsert' && (error as { code?: string }).code === '23505') return run();
      throw error;
    }
  }

  /** DELETE /object/{bucket}/{name}: 404 when the caller cannot see it, 403 when they see it but may not delete. */
  async removeOne(caller: Caller, ref: ObjectRef): Promise<{ message: string }> {
    checkObjectName(ref.name);
    const versions = await asCaller(this.o.sql, caller, async (tx) => {
      const rows = await tx<{ version: string }[]>`
        delete from storage.objects where bucket_id = ${ref.bucket} and name = ${ref.name} returning version`;
      if (rows.length === 0) {
        const [seen] = await tx`select 1 from storage.objects where bucket_id = ${ref.bucket} and name = ${ref.name}`;
        throw seen ? errors.unauthorized('You may not delete this object') : errors.objectNotFound();
      }
      return rows.map((r) => r.version);
    });
    await removeQuietly(
      this.o.backend,
      versions.map((v) => objectKey(ref.bucket, v)),
      this.o.log,
    );
    return { message: 'Successfully deleted' };
  }

  /** DELETE /object/{bucket} {prefixes}: deletes what RLS lets the caller delete and lists it (as Supabase). */
  async removeMany(caller: Caller, bucket: string, prefixes: unknown): Promise<Omit<ObjectRow, 'version'>[]> {
    const names = checkObjectNames(prefixes, 'prefixes', MAX_REMOVE);
    const rows = await asCaller(
      this.o.sql,
      caller,
      (tx) => tx<ObjectRow[]>`
      delete from storage.objects where bucket_id = ${bucket} and name = any(${names})
        returning ${tx.unsafe(OBJECT_COLUMNS)}`,
    );
    await removeQuietly(
      this.o.backend,
      rows.map((r) => objectKey(bucket, r.version)),
      this.o.log,
    );
    return rows.map(({ version: _v, ...rest }) => rest);
  }

  /**
   * POST /object/move. Within a bucket only the row is renamed (the key holds no name). Across buckets the
   * key changes, so the bytes are copied to a new version under the destination before the commit and the
   * old ones removed after it. RLS checks both sides: the update policy's USING on the source row, its WITH
   * CHECK on the destination.
   */
  async move(caller: Caller, t: Transfer): Promise<{ message: string }> {
    checkObjectName(t.from);
    checkObjectName(t.to);
    if (t.toBucket === t.fromBucket) {
      await asCaller(this.o.sql, caller, async (tx) => {
        const [moved] = await tx`
          update storage.objects set name = ${t.to}, updated_at = now()
          where bucket_id = ${t.fromBucket} and name = ${t.from} returning id`;
        if (!moved) await this.refuse(tx, t.fromBucket, t.from, 'move');
      });
      return { message: 'Successfully moved' };
    }
    const limits = await this.o.reads.uploadLimits(t.toBucket);
    const version = randomUUID();
    const key = objectKey(t.toBucket, version);
    let oldKey: string;
    try {
      oldKey = await asCaller(this.o.sql, caller, async (tx) => {
        // Rows the caller may read but not update are not locked: refuse() tells 403 from 404.
        const source = (await this.readSource(tx, t, true)) ?? (await this.refuse(tx, t.fromBucket, t.from, 'move'));
        this.checkLimits(source.metadata, limits);
        const [moved] = await tx`
          update storage.objects set bucket_id = ${t.toBucket}, name = ${t.to}, version = ${version}, updated_at = now()
          where id = ${source.id} returning id`;
        if (!moved) await this.refuse(tx, t.fromBucket, t.from, 'move');
        const from = objectKey(t.fromBucket, source.version);
        await this.o.backend.copy(from, key);
        return from;
      });
    } catch (error) {
      await removeQuietly(this.o.backend, [key], this.o.log);
      throw error;
    }
    await removeQuietly(this.o.backend, [oldKey], this.o.log);
    return { message: 'Successfully moved' };
  }

  /**
   * POST /object/copy: a row with a new version, its bytes copied before the commit. With `x-upsert: true` an
   * existing destination is replaced (its old bytes removed after the commit). The destination bucket's size
   * limit and type list apply, so a copy cannot carry into a bucket what an upload could not.
   */
  async copy(caller: Caller, t: Transfer, upsert: boolean): Promise<{ Key: string; Id: string }> {
    checkObjectName(t.from);
    checkObjectName(t.to);
    const limits = await this.o.reads.uploadLimits(t.toBucket);
    const mode = upsert ? 'upsert' : 'create';
    const target = { bucket: t.toBucket, name: t.to };
    return this.commitVersion(caller, target, mode, async (tx, key, version) => {
      const source = await this.readSource(tx, t);
      if (!source) throw errors.objectNotFound();
      this.checkLimits(source.metadata, limits);
      const metadata = { ...source.metadata, lastModified: new Date().toISOString() };
      const written = await this.writeRow(tx, caller, target, version, metadata, source.user_metadata, mode);
      await this.o.backend.copy(objectKey(t.fromBucket, source.version), key);
      return written;
    });
  }

  /**
   * A new version of an object: `place` writes its row and puts its bytes under `key` in the caller's transaction
   * (retried once on an insert race). On failure the new bytes are removed; after the commit, the bytes of the
   * version it replaced.
   */
  private async commitVersion(
    caller: Caller,
    target: ObjectRef,
    mode: UploadMode,
    place: (tx: postgres.ReservedSql, key: string, version: string) => Promise<WrittenRow>,
  ): Promise<{ Key: string; Id: string }> {
    const version = randomUUID();
    const key = objectKey(target.bucket, version);
    let row: WrittenRow;
    try {
      row = await this.retryOnRace(mode, () => asCaller(this.o.sql, caller, (tx) => place(tx, key, version)));
    } catch (error) {
      await removeQuietly(this.o.backend, [key], this.o.log);
      throw error;
    }
    if (row.old_version) await removeQuietly(this.o.backend, [objectKey(target.bucket, row.old_version)], this.o.log);
    return { Key: `${target.bucket}/${target.name}`, Id: row.id };
  }

  /** The source of a move or copy as the caller sees it (RLS read), or undefined when hidden or missing. */
  private async readSource(tx: postgres.ReservedSql, t: Transfer, lock = false): Promise<ObjectRow | undefined> {
    // A copy needs only read access to the source; a move locks it (and so needs the update policy).
    const [source] = await tx<ObjectRow[]>`
      select ${tx.unsafe(OBJECT_COLUMNS)} from storage.objects where bucket_id = ${t.fromBucket} and name = ${t.from}
      ${lock ? tx`for update` : tx``}`;
    return source;
  }

  private checkLimits(metadata: ObjectMetadata, bucket: BucketRow): void {
    const limit = Math.min(bucket.file_size_limit ?? this.o.fileSizeLimit, this.o.fileSizeLimit);
    if (metadata.size > limit) throw errors.tooLarge();
    const type = normaliseMimeType(metadata.mimetype) ?? metadata.mimetype;
    if (bucket.allowed_mime_types && !typeAllowed(type, bucket.allowed_mime_types)) {
      throw errors.invalidMimeType(`mime type ${metadata.mimetype} is not supported`);
    }
  }

  /** Nothing changed: 403 when the caller can see the object (RLS refused the write), else 404. */
  private async refuse(tx: postgres.ReservedSql, bucket: string, name: string, verb: string): Promise<never> {
    const [seen] = await tx`select 1 from storage.objects where bucket_id = ${bucket} and name = ${name}`;
    throw seen ? errors.unauthorized(`You may not ${verb} this object`) : errors.objectNotFound();
  }
}
