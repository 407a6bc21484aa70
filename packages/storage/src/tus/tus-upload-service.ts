// Resumable uploads (TUS 1.0, as Supabase's storage speaks it): creation, offsets, chunks, termination and the
// completion that turns the parts into an object.
//
// Each PATCH body is spooled, placed on the backend as a part of its own (a key like any object version) and
// then recorded by a compare-and-set on the offset, so the state is in PostgreSQL and the bytes on the
// backend, and any instance can take the next chunk. The chunk that reaches Upload-Length completes the upload:
// the parts are streamed in order through the ordinary upload path (size, type and RLS checks again, one new
// object version) and, in that same transaction, tus_complete removes the upload's row, so the object is
// committed exactly once even if two requests try. Parts are removed after the commit (the orphan sweep keeps
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

const DEFAULT_CACHE_CONTROL = 'max-age=3600';

/** Who may continue an upload: the user, or the role for callers without a user (service_role, anon). */
function ownerKeyOf(caller: Caller): string {
  return callerUserId(caller) ?? caller.role;
}

function stateOf(row: TusUploadRow): TusState {
  return { id: row.id, offset: row.upload_offset, length: row.upload_length, expiresAt: row.expires_at };
}

function userMetadataOf(json: string | undefined): Record<string, unknown> | null {
  if (!json) return null;
  try {
    const value: unknown = JSON.parse(json);
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw errors.invalidRequest('metadata must be a JSON object');
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
      cache_control: !cacheControl
        ? DEFAULT_CACHE_CONTROL
        : /^\d+$/.test(cacheControl)
          ? `max-age=${cacheControl}`
          : cacheControl.slice(0, 200),
      user_metadata: userMetadataOf(request.metadata.get('metadata')),
    });
    // An empty upload is complete as created: clients send no PATCH for it.
    if (row.upload_length === 0) await this.complete(caller, row);
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
    let current = row;
    try {
      if (chunk.size > 0) current = await this.storePart(row, offset, chunk.file, chunk.size);
    } finally {
      await rm(chunk.file, { force: true });
    }
    if (!chunk.interrupted && current.upload_offset === current.upload_length) await this.complete(caller, current);
    return stateOf(current);
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

  private async storePart(row: TusUploadRow, offset: number, file: string, size: number): Promise<TusUploadRow> {
    const part = randomUUID();
    const key = objectKey(row.bucket_id, part);
    try {
      await this.o.backend.put(key, file, { size, contentType: 'application/offset+octet-stream' });
      const advanced = await this.store.append(row.id, offset, size, part);
      if (!advanced) throw errors.offsetMismatch(undefined);
      return advanced;
    } catch (error) {
      await removeQuietly(this.o.backend, [key], this.o.log);
      throw error;
    }
  }

  private async complete(caller: Caller, row: TusUploadRow): Promise<void> {
    const ownerKey = row.owner_key;
    const ref = { bucket: row.bucket_id, name: row.name };
    try {
      await this.o.writes.upload(
        caller,
        ref,
        {
          source: Readable.from(this.partBytes(row)),
          declaredType: row.content_type ?? undefined,
          cacheControl: row.cache_control,
          userMetadata: row.user_metadata,
          contentLength: row.upload_length,
        },
        row.upsert ? 'upsert' : 'create',
        async (tx) => {
          const [ended] = await tx<{ done: boolean }[]>`select storage.tus_complete(${row.id}, ${ownerKey}) as done`;
          if (!ended?.done) throw errors.uploadNotFound();
        },
      );
    } catch (error) {
      // A refusal is final (the same bytes would be refused again): end the upload rather than leave it to expire.
      const status = toStorageError(error).status;
      if (status < 500 && status !== 404) {
        const gone = await this.store.remove(row.id, ownerKey);
        if (gone) await this.removeParts(gone);
      }
      throw error;
    }
    await this.removeParts(row);
  }

  /** The parts' bytes in order, one backend read at a time. */
  private async *partBytes(row: TusUploadRow): AsyncGenerator<Buffer> {
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
