// Resumable uploads (TUS 1.0, as Supabase's storage speaks it): creation, offsets, chunks, termination and the
// completion that turns the parts into an object.
//
// Each PATCH body is spooled, placed on the backend as a part of its own (a key like any object version) and
// then recorded by a compare-and-set on the offset, so the state is in PostgreSQL and the bytes on the
// backend, and any instance can take the next chunk. The chunk that reaches Upload-Length completes the upload:
// the parts are streamed in order through the ordinary upload path (size, type and RLS checks again, one new
// object version) and, in that same transaction, tus_complete removes the upload's row if it still stands where
// that chunk started, so the object is committed exactly once even if two requests try, and the offset never
// shows the full length without the object (a failed commit leaves the last chunk to be sent again). Parts are removed after the commit (the orphan sweep keeps
// the parts of live uploads and takes any left behind).
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type postgres from 'postgres';
import { callerUserId, type Caller } from '../caller-transaction.js';
import { precheckDeclaredType } from '../content-type-policy.js';
import { checkObjectName, type ObjectRef } from '../object-path.js';
import type { ObjectReadService } from '../object-read-service.js';
import type { ObjectWriteService } from '../object-write-service.js';
import { objectKey, removeQuietly, type StorageBackend, type StorageLog } from '../storage-backend.js';
import { errors, toStorageError } from '../storage-errors.js';
import { cacheControlOf, metadataOf } from '../upload-body.js';
import { spoolChunk } from './tus-chunk-spool.js';
import { type TusUploadRow, TusUploadStore } from './tus-upload-store.js';

export interface TusServiceOptions {
  sql: postgres.Sql;
  backend: StorageBackend;
  reads: ObjectReadService;
  writes: ObjectWriteService;
  tmpDir: string;
  fileSizeLimit: number;
  expirySeconds: number;
  log: StorageLog;
}

export interface TusCreate {
  length: number;
  metadata: Map<string, string>;
  upsert: boolean;
}

export interface TusState {
  id: string;
  offset: number;
  length: number;
  expiresAt: Date;
}

/** Who may continue an upload: the user, or the role for callers without a user (service_role, anon). */
function ownerKeyOf(caller: Caller): string {
  return callerUserId(caller) ?? caller.role;
}

function stateOf(row: TusUploadRow): TusState {
  return { id: row.id, offset: row.upload_offset, length: row.upload_length, expiresAt: row.expires_at };
}

export class TusUploadService {
  readonly store: TusUploadStore;

  constructor(private readonly o: TusServiceOptions) {
    this.store = new TusUploadStore(o.sql, o.expirySeconds);
  }

  /** POST: checks the bucket's limits and the caller's right to write the object now, then records the upload. */
  async create(caller: Caller, request: TusCreate): Promise<TusState> {
    const bucket = request.metadata.get('bucketName');
    const name = request.metadata.get('objectName');
    if (!bucket || !name) throw errors.invalidRequest('Upload-Metadata must name bucketName and objectName');
    const ref: ObjectRef = { bucket, name };
    checkObjectName(name);
    const limits = await this.o.reads.uploadLimits(bucket);
    if (request.length > Math.min(limits.file_size_limit ?? this.o.fileSizeLimit, this.o.fileSizeLimit)) {
      throw errors.tooLarge();
    }
    const contentType = request.metadata.get('contentType') || null;
    precheckDeclaredType(contentType ?? undefined, limits.allowed_mime_types);
    await this.o.writes.checkWritable(caller, ref, request.upsert ? 'upsert' : 'create');
    const cacheControl = request.metadata.get('cacheControl');
    const row = await this.store.insert({
      id: randomUUID(),
      bucket_id: bucket,
      name,
      owner_key: ownerKeyOf(caller),
      upload_length: request.length,
      upsert: request.upsert,
      content_type: contentType,
      cache_control: cacheControlOf(cacheControl),
      user_metadata: metadataOf(request.metadata.get('metadata')),
    });
    // An empty upload is complete as created: clients send no PATCH for it.
    if (row.upload_length === 0) await this.complete(caller, row, 0);
    return stateOf(row);
  }

  /** HEAD: the offset to resume from; another caller's upload is as unknown as a missing one. */
  async status(caller: Caller, id: string): Promise<TusState> {
    return stateOf(await this.live(caller, id));
  }

  /**
   * PATCH: appends the body at `offset`. A body cut off keeps what arrived. The chunk that completes the upload
   * commits the object before the answer; a refused completion (policy, type, size) ends the upload.
   */
  async append(caller: Caller, id: string, offset: number, body: Readable, declaredLength?: number): Promise<TusState> {
    const row = await this.live(caller, id);
    if (offset !== row.upload_offset) throw errors.offsetMismatch(row.upload_offset);
    const room = row.upload_length - offset;
    if (declaredLength !== undefined && declaredLength > room) throw errors.tooLarge();
    const chunk = await spoolChunk(body, this.o.tmpDir, room);
    try {
      if (chunk.size === 0) return stateOf(row);
      const part = await this.placePart(row.bucket_id, chunk.file, chunk.size);
      if (chunk.interrupted || chunk.size < room) return stateOf(await this.recordPart(row, offset, chunk.size, part));
      // The last chunk is recorded by the commit itself (see complete).
      await this.complete(caller, row, offset, part);
      return { ...stateOf(row), offset: row.upload_length };
    } finally {
      await rm(chunk.file, { force: true });
    }
  }

  /** DELETE: ends the upload and removes its parts. */
  async terminate(caller: Caller, id: string): Promise<void> {
    const row = await this.store.remove(id, ownerKeyOf(caller));
    if (!row) throw errors.uploadNotFound();
    await this.removeParts(row);
  }

  /** Removes uploads past their expiry with their parts; returns how many. */
  async sweepExpired(): Promise<number> {
    const batch = 500;
    let removed = 0;
    for (;;) {
      const rows = await this.store.removeExpired(batch);
      for (const row of rows) await this.removeParts(row);
      removed += rows.length;
      if (rows.length < batch) return removed;
    }
  }

  private async live(caller: Caller, id: string): Promise<TusUploadRow> {
    const row = /^[0-9a-f-]{36}$/i.test(id) ? await this.store.find(id, ownerKeyOf(caller)) : undefined;
    if (!row) throw errors.uploadNotFound();
    return row;
  }

  /** Puts a chunk's bytes on the backend as a part of their own; answers the part's id. */
  private async placePart(bucket: string, file: string, size: number): Promise<string> {
    const part = randomUUID();
    await this.o.backend.put(objectKey(bucket, part), file, { size, contentType: 'application/offset+octet-stream' });
    return part;
  }

  private async recordPart(row: TusUploadRow, offset: number, size: number, part: string): Promise<TusUploadRow> {
    const advanced = await this.store.append(row.id, offset, size, part).catch(async (error: unknown) => {
      await this.removeParts({ bucket_id: row.bucket_id, parts: [part] });
      throw error;
    });
    if (advanced) return advanced;
    await this.removeParts({ bucket_id: row.bucket_id, parts: [part] });
    throw errors.offsetMismatch(undefined);
  }

  /**
   * Commits the object from the recorded parts and `lastPart` (the chunk from `offset` that reaches the length).
   * The upload's row is removed in the same transaction, only if it still stands at `offset`: a raced chunk or
   * completion loses with 409, and a failed commit leaves the upload where it was, to be retried.
   */
  private async complete(caller: Caller, row: TusUploadRow, offset: number, lastPart?: string): Promise<void> {
    const ownerKey = row.owner_key;
    const parts = { bucket_id: row.bucket_id, parts: lastPart ? [...row.parts, lastPart] : row.parts };
    try {
      await this.o.writes.upload(
        caller,
        { bucket: row.bucket_id, name: row.name },
        {
          source: Readable.from(this.partBytes(parts)),
          declaredType: row.content_type ?? undefined,
          cacheControl: row.cache_control,
          userMetadata: row.user_metadata,
          contentLength: row.upload_length,
        },
        row.upsert ? 'upsert' : 'create',
        async (tx) => {
          const [ended] = await tx<{ done: boolean }[]>`
            select storage.tus_complete(${row.id}, ${ownerKey}, ${offset}) as done`;
          if (!ended?.done) throw errors.offsetMismatch(undefined);
        },
      );
    } catch (error) {
      if (lastPart) await this.removeParts({ bucket_id: row.bucket_id, parts: [lastPart] });
      // A refusal is final (the same bytes would be refused again): end the upload rather than leave it to expire.
      const failure = toStorageError(error);
      if (failure.status < 500 && failure.status !== 404 && failure.error !== 'Conflict') {
        const gone = await this.store.remove(row.id, ownerKey);
        if (gone) await this.removeParts(gone);
      }
      throw error;
    }
    await this.removeParts(parts);
  }

  /** The parts' bytes in order, one backend read at a time. */
  private async *partBytes(row: Pick<TusUploadRow, 'bucket_id' | 'parts'>): AsyncGenerator<Buffer> {
    for (const part of row.parts) {
      const stream = await this.o.backend.get(objectKey(row.bucket_id, part));
      // for-await destroys the part's stream when the consumer stops early (a refused upload).
      for await (const chunk of stream) yield chunk as Buffer;
    }
  }

  private removeParts(row: Pick<TusUploadRow, 'bucket_id' | 'parts'>): Promise<void> {
    return removeQuietly(
      this.o.backend,
      row.parts.map((part) => objectKey(row.bucket_id, part)),
      this.o.log,
    );
  }
}
