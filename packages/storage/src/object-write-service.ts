// Writes: upload (create, upsert, update), remove, move, copy — keeping rows and bytes in step.
//
// The protocol (both backends): the body is spooled to a temp file and validated (size, type) with no
// transaction open; then one transaction under the caller's role writes the row (RLS decides) with a fresh
// version, places the bytes under `<bucket>/<version>` (rename or PutObject), and commits. A row is therefore
// never committed without its bytes. If anything fails, the transaction rolls back and the new version's
// bytes and the spool file are removed. Bytes replaced by an upsert, or of deleted rows, are removed only
// after the commit, so a rollback never loses the bytes a committed row still points at. The one window left
// is a crash between placing bytes and commit (or before post-commit removal): that leaves unreferenced
// bytes, never a row without bytes; keys are versions, so a sweep can find them by comparing with the table.
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import type postgres from 'postgres';
import { asCaller, callerUserId, type Caller } from './caller-transaction.js';
import type { ObjectMetadata, ObjectRow } from './object-row.js';
import { OBJECT_COLUMNS } from './object-row.js';
import { checkObjectName, type ObjectRef } from './object-path.js';
import type { ObjectReadService } from './object-read-service.js';
import { objectKey, type StorageBackend } from './storage-backend.js';
import { errors, StorageError } from './storage-errors.js';
import type { UploadBody } from './upload-body.js';
import { precheckDeclaredType, spoolUpload } from './upload-spool.js';

export type UploadMode = 'create' | 'upsert' | 'update';

export interface WriteServiceOptions {
  sql: postgres.Sql;
  backend: StorageBackend;
  reads: ObjectReadService;
  tmpDir: string;
  fileSizeLimit: number;
  log: (message: string, fields: Record<string, unknown>) => void;
}

const MAX_REMOVE = 1000;

export class ObjectWriteService {
  constructor(private readonly o: WriteServiceOptions) {}

  async upload(caller: Caller, ref: ObjectRef, body: UploadBody, mode: UploadMode): Promise<{ Key: string; Id: string }> {
    let spoolFile: string | undefined;
    try {
      checkObjectName(ref.name);
      const bucket = await this.o.reads.uploadLimits(ref.bucket);
      const limit = Math.min(bucket.file_size_limit ?? this.o.fileSizeLimit, this.o.fileSizeLimit);
      if (body.contentLength !== undefined && body.contentLength > limit) throw errors.tooLarge(limit);
      precheckDeclaredType(body.declaredType, bucket.allowed_mime_types);
      const spooled = await spoolUpload(body.source, {
        tmpDir: this.o.tmpDir, limit, declaredType: body.declaredType, allowedTypes: bucket.allowed_mime_types,
      });
      spoolFile = spooled.file;
      const metadata: ObjectMetadata = {
        eTag: `"${spooled.md5}"`, size: spooled.size, mimetype: spooled.mimetype, cacheControl: body.cacheControl,
        lastModified: new Date().toISOString(), contentLength: spooled.size, httpStatusCode: 200,
      };
      const version = randomUUID();
      const key = objectKey(ref.bucket, version);
      const write = (tx: postgres.TransactionSql) => this.writeRow(tx, caller, ref, version, metadata, body.userMetadata, mode);
      let row: { id: string; old_version: string | null };
      try {
        row = await this.retryOnRace(mode, () => asCaller(this.o.sql, caller, async (tx) => {
          const written = await write(tx);
          await this.o.backend.put(key, spooled.file, { size: spooled.size, contentType: spooled.mimetype });
          return written;
        }));
      } catch (error) {
        await this.removeBytes([key]);
        throw error;
      }
      if (row.old_version) await this.removeBytes([objectKey(ref.bucket, row.old_version)]);
      return { Key: `${ref.bucket}/${ref.name}`, Id: row.id };
    } catch (error) {
      // A refused body may still be arriving; make sure it is consumed or dropped, never left hanging.
      if (!body.source.readableEnded && !body.source.destroyed) body.source.resume();
      throw error;
    } finally {
      if (spoolFile) await rm(spoolFile, { force: true });
    }
  }

  /** Writes the row of an upload under RLS; metadata null is a trial write (signed upload URLs, rolled back). */
  async writeRow(tx: postgres.TransactionSql, caller: Caller, ref: ObjectRef, version: string,
    metadata: ObjectMetadata | null, userMetadata: Record<string, unknown> | null, mode: UploadMode) {
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
        from (select id, version from storage.objects where bucket_id = ${ref.bucket} and name = ${ref.name} for update) old
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
    await this.removeBytes(versions.map((v) => objectKey(ref.bucket, v)));
    return { message: 'Successfully deleted' };
  }

  /** DELETE /object/{bucket} {prefixes}: deletes what RLS lets the caller delete and lists it (as Supabase). */
  async removeMany(caller: Caller, bucket: string, prefixes: unknown): Promise<Omit<ObjectRow, 'version'>[]> {
    if (!Array.isArray(prefixes) || prefixes.length === 0 || prefixes.length > MAX_REMOVE || !prefixes.every((p) => typeof p === 'string')) {
      throw errors.invalidRequest(`prefixes must be a list of 1 to ${MAX_REMOVE} object names`);
    }
    const names = (prefixes as string[]).map(checkObjectName);
    const rows = await asCaller(this.o.sql, caller, (tx) => tx<ObjectRow[]>`
      delete from storage.objects where bucket_id = ${bucket} and name = any(${names}) returning ${tx.unsafe(OBJECT_COLUMNS)}`);
    await this.removeBytes(rows.map((r) => objectKey(bucket, r.version)));
    return rows.map(({ version: _v, ...rest }) => rest);
  }

  /** POST /object/move: renames the row; the bytes stay under their version key, so nothing is copied. */
  async move(caller: Caller, bucket: string, from: string, to: string): Promise<{ message: string }> {
    checkObjectName(from);
    checkObjectName(to);
    await asCaller(this.o.sql, caller, async (tx) => {
      const [moved] = await tx`
        update storage.objects set name = ${to}, updated_at = now()
        where bucket_id = ${bucket} and name = ${from} returning id`;
      if (!moved) {
        const [seen] = await tx`select 1 from storage.objects where bucket_id = ${bucket} and name = ${from}`;
        throw seen ? errors.unauthorized('You may not move this object') : errors.objectNotFound();
      }
    });
    return { message: 'Successfully moved' };
  }

  /** POST /object/copy: a new row with a new version; its bytes are copied before the commit. */
  async copy(caller: Caller, bucket: string, from: string, to: string): Promise<{ Key: string; Id: string }> {
    checkObjectName(from);
    checkObjectName(to);
    const version = randomUUID();
    const key = objectKey(bucket, version);
    try {
      const id = await asCaller(this.o.sql, caller, async (tx) => {
        const [source] = await tx<ObjectRow[]>`
          select ${tx.unsafe(OBJECT_COLUMNS)} from storage.objects where bucket_id = ${bucket} and name = ${from}`;
        if (!source) throw errors.objectNotFound();
        const metadata = { ...source.metadata, lastModified: new Date().toISOString() };
        const [row] = await tx<{ id: string }[]>`
          insert into storage.objects (bucket_id, name, owner_id, version, metadata, user_metadata)
          values (${bucket}, ${to}, ${callerUserId(caller)}, ${version}, ${tx.json(metadata as unknown as postgres.JSONValue)},
                  ${source.user_metadata === null ? null : tx.json(source.user_metadata as postgres.JSONValue)})
          returning id`;
        await this.o.backend.copy(objectKey(bucket, source.version), key);
        return row!.id;
      });
      return { Key: `${bucket}/${to}`, Id: id };
    } catch (error) {
      await this.removeBytes([key]);
      throw error;
    }
  }

  /** Best effort after the fact: a failure here leaves unreferenced bytes (logged), never a dangling row. */
  private async removeBytes(keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    try {
      await this.o.backend.remove(keys);
    } catch (error) {
      this.o.log('storage: could not remove bytes', { keys, error: error instanceof StorageError ? error.message : String(error) });
    }
  }
}
