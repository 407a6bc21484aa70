// Resumable uploads (TUS 1.0, as Supabase's storage speaks it): creation, offsets, chunks, termination and the
// completion that turns the chunks into an object. The state is a row in PostgreSQL, so any instance can take
// the next chunk. This module is the protocol (who may do what, offsets, limits, when an upload ends); the bytes
// are kept one of two ways (tus-upload-bytes.ts): staged in place in one file on the filesystem backend
// (tus-staged-bytes.ts), or as one backend part per chunk elsewhere (tus-part-bytes.ts).
//
// Either way the committing transaction (size, type and RLS checks again, as the caller) first calls
// tus_complete, which removes the upload's row only if it still stands where that chunk started (and, staged,
// the chunk still holds the claim): the object is committed exactly once even if two requests try, and the
// offset never shows the full length without the object (a failed commit leaves the last chunk to be sent
// again). Parts and staging files are removed after the commit; the sweeps take any left behind.
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type postgres from 'postgres';
import { callerUserId, type Caller } from '../caller-transaction.js';
import { precheckDeclaredType } from '../content-type-policy.js';
import { checkObjectName, type ObjectRef } from '../object-path.js';
import type { ObjectReadService } from '../object-read-service.js';
import type { ObjectWriteService } from '../object-write-service.js';
import type { StorageBackend, StorageLog } from '../storage-backend.js';
import { errors, toStorageError } from '../storage-errors.js';
import { cacheControlOf, metadataOf } from '../upload-body.js';
import { TusPartBytes } from './tus-part-bytes.js';
import { TusStagedBytes } from './tus-staged-bytes.js';
import type { TusStaging } from './tus-staging.js';
import { type EndedUpload, stateOf, type TusState, type TusUploadBytes } from './tus-upload-bytes.js';
import { type TusUploadRow, TusUploadStore } from './tus-upload-store.js';

interface TusServiceOptions {
  sql: postgres.Sql;
  backend: StorageBackend;
  reads: ObjectReadService;
  writes: ObjectWriteService;
  tmpDir: string;
  fileSizeLimit: number;
  expirySeconds: number;
  log: StorageLog;
  /** Staging files for uploads written in place (the filesystem backend); without it, parts on the backend. */
  staging?: TusStaging;
}

export interface TusCreate {
  length: number;
  metadata: Map<string, string>;
  upsert: boolean;
}

/** Upload ids are UUIDs; anything else is unknown without a query. */
const UPLOAD_ID = /^[0-9a-f-]{36}$/i;

/**
 * Who may continue an upload: the user, or the service role. Callers without a user (anon, or a token with no
 * user id) would all share one key, so any of them could continue another's upload: they are refused.
 */
function ownerKeyOf(caller: Caller): string | undefined {
  return callerUserId(caller) ?? (caller.role === 'service_role' ? caller.role : undefined);
}

export class TusUploadService {
  readonly store: TusUploadStore;
  /** Always there: an upload recorded with parts is continued with parts whatever the backend is now. */
  private readonly parts: TusPartBytes;
  private readonly staged: TusStagedBytes | undefined;
  /** Where new uploads' bytes go: in place when there is a staging directory. */
  private readonly bytes: TusUploadBytes;

  constructor(private readonly o: TusServiceOptions) {
    this.store = new TusUploadStore(o.sql, o.expirySeconds);
    const ctx = {
      store: this.store,
      writes: o.writes,
      endOnRefusal: (row: TusUploadRow, error: unknown) => this.endOnRefusal(row, error),
    };
    this.parts = new TusPartBytes(ctx, o.backend, o.tmpDir, o.log);
    this.staged = o.staging && new TusStagedBytes(ctx, o.staging);
    this.bytes = this.staged ?? this.parts;
  }

  /** POST: checks the bucket's limits and the caller's right to write the object now, then records the upload. */
  async create(caller: Caller, request: TusCreate): Promise<TusState> {
    const bucket = request.metadata.get('bucketName');
    const name = request.metadata.get('objectName');
    if (!bucket || !name) throw errors.invalidRequest('Upload-Metadata must name bucketName and objectName');
    const ref: ObjectRef = { bucket, name };
    checkObjectName(name);
    const ownerKey = ownerKeyOf(caller);
    if (!ownerKey) {
      throw errors.unauthorized('Resumable uploads need a signed-in user (anonymous uploads could not be told apart)');
    }
    const limits = await this.o.reads.uploadLimits(bucket);
    if (request.length > Math.min(limits.file_size_limit ?? this.o.fileSizeLimit, this.o.fileSizeLimit)) {
      throw errors.tooLarge();
    }
    const contentType = request.metadata.get('contentType') || null;
    precheckDeclaredType(contentType ?? undefined, limits.allowed_mime_types);
    // Under the disk's free-space floor, with the whole length to come (507).
    this.o.writes.space.admit(request.length);
    await this.o.writes.checkWritable(caller, ref, request.upsert ? 'upsert' : 'create');
    const cacheControl = request.metadata.get('cacheControl');
    const id = randomUUID();
    const bytes = this.bytes;
    await bytes.open(id);
    const row = await this.store
      .insert({
        id,
        bucket_id: bucket,
        name,
        owner_key: ownerKey,
        upload_length: request.length,
        upsert: request.upsert,
        staged: bytes.staged,
        content_type: contentType,
        cache_control: cacheControlOf(cacheControl),
        user_metadata: metadataOf(request.metadata.get('metadata')),
      })
      .catch(async (error: unknown) => {
        await bytes.discard(id);
        throw error;
      });
    // An empty upload is complete as created: clients send no PATCH for it.
    if (row.upload_length === 0) await bytes.completeEmpty(caller, row);
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
    try {
      // Under the disk's free-space floor nothing is written (507); the client resumes from the offset later.
      this.o.writes.space.admit(declaredLength ?? 0);
    } catch (error) {
      body.resume();
      throw error;
    }
    return this.o.writes.space.watch(() => this.appendAdmitted(caller, id, offset, body, declaredLength));
  }

  private async appendAdmitted(
    caller: Caller,
    id: string,
    offset: number,
    body: Readable,
    declaredLength?: number,
  ): Promise<TusState> {
    // Staged uploads are claimed straight away (one round trip fewer per chunk); a failed claim is explained below.
    const ownerKey = ownerKeyOf(caller);
    const claimed =
      this.staged && ownerKey && UPLOAD_ID.test(id)
        ? await this.staged.appendClaimed(caller, ownerKey, id, offset, body, declaredLength)
        : undefined;
    if (claimed) return claimed;
    const row = await this.live(caller, id);
    if (offset !== row.upload_offset) throw errors.offsetMismatch(row.upload_offset);
    const room = row.upload_length - offset;
    if (declaredLength !== undefined && declaredLength > room) throw errors.tooLarge();
    // Standing at this offset but not claimed: another request is writing it.
    if (row.staged) throw errors.uploadBusy();
    return this.parts.append(caller, row, offset, body);
  }

  /** A refusal is final (the same bytes would be refused again): end the upload rather than leave it to expire. */
  private async endOnRefusal(row: TusUploadRow, error: unknown): Promise<void> {
    const failure = toStorageError(error);
    if (failure.status < 500 && failure.status !== 404 && failure.error !== 'Conflict') {
      const gone = await this.store.remove(row.id, row.owner_key);
      if (gone) await this.removeBytes(gone);
    }
  }

  /** DELETE: ends the upload and removes its bytes. */
  async terminate(caller: Caller, id: string): Promise<void> {
    const ownerKey = ownerKeyOf(caller);
    const row = ownerKey && UPLOAD_ID.test(id) ? await this.store.remove(id, ownerKey) : undefined;
    if (!row) throw errors.uploadNotFound();
    await this.removeBytes(row);
  }

  /** Removes uploads past their expiry with their parts; returns how many. */
  async sweepExpired(): Promise<number> {
    const batch = 500;
    let removed = 0;
    for (;;) {
      const rows = await this.store.removeExpired(batch);
      for (const row of rows) await this.removeBytes(row);
      removed += rows.length;
      if (rows.length < batch) break;
    }
    await this.staged?.sweep();
    return removed;
  }

  private async live(caller: Caller, id: string): Promise<TusUploadRow> {
    const ownerKey = ownerKeyOf(caller);
    const row = ownerKey && UPLOAD_ID.test(id) ? await this.store.find(id, ownerKey) : undefined;
    if (!row) throw errors.uploadNotFound();
    return row;
  }

  /** An ended upload's bytes: its parts, and its staging file. */
  private async removeBytes(row: EndedUpload): Promise<void> {
    await this.parts.remove(row);
    if (row.staged) await this.staged?.remove(row);
  }
}
