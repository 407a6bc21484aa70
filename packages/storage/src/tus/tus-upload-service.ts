// Resumable uploads (TUS 1.0, as Supabase's storage speaks it): creation, offsets, chunks, termination and the
// completion that turns the chunks into an object. The state is a row in PostgreSQL, so any instance can take
// the next chunk; the bytes are kept one of two ways:
//
// - Staged (filesystem backend): every chunk is written straight into the upload's one staging file at its byte
//   range and fsynced (tus-staging.ts), under a claim on the row that lets one request write at a time. The
//   completing chunk checks the type from the file's first bytes and places the file with a rename: every byte
//   is written and fsynced once, as for a plain upload. The ETag is composed from the chunks' MD5s (or, with
//   mtime ETags, made at the commit: etag-algorithm.ts).
// - Parts (S3): each chunk is spooled and placed on the backend as a part of its own, recorded by a
//   compare-and-set on the offset; the completing chunk streams the parts in order through the ordinary upload
//   path (a second write of every byte).
//
// Either way the committing transaction (size, type and RLS checks again, as the caller) first calls
// tus_complete, which removes the upload's row only if it still stands where that chunk started (and, staged,
// the chunk still holds the claim): the object is committed exactly once even if two requests try, and the
// offset never shows the full length without the object (a failed commit leaves the last chunk to be sent
// again). Parts and staging files are removed after the commit; the sweeps take any left behind.
import { createHash, randomUUID } from 'node:crypto';
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
import type { ChunkLimits, TusStaging } from './tus-staging.js';
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
  /** Staging files for uploads written in place (the filesystem backend); without it, parts on the backend. */
  staging?: TusStaging;
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

// A writer's claim on a staged upload lasts LEASE_SECONDS and is renewed every RENEW_MS while its body flows.
// The writer stops writing LEASE_MARGIN_SECONDS before its lease could run out, and a body silent for IDLE_MS is
// taken as gone, so a claim is taken over only from a writer that no longer writes.
const LEASE_SECONDS = 60;
const LEASE_MARGIN_SECONDS = 20;
const RENEW_MS = 10_000;
const IDLE_MS = 30_000;
/** Staging files without an upload (a crash between the two) are removed after this long. */
const STAGING_GRACE_MS = 3600_000;

/**
 * Who may continue an upload: the user, or the service role. Callers without a user (anon, or a token with no
 * user id) would all share one key, so any of them could continue another's upload: they are refused.
 */
function ownerKeyOf(caller: Caller): string | undefined {
  return callerUserId(caller) ?? (caller.role === 'service_role' ? caller.role : undefined);
}

/** What a chunk written without hashing (STORAGE_FILE_ETAG_ALGORITHM=mtime) records as its MD5. */
const UNHASHED = '';

/**
 * S3's multipart ETag: the MD5 of the parts' MD5s and their count; one chunk keeps its own MD5. Undefined (an
 * mtime ETag, made at the commit) when any chunk was written without its MD5.
 */
function composedEtag(md5s: readonly string[]): string | undefined {
  if (md5s.includes(UNHASHED)) return undefined;
  if (md5s.length === 0) return `"${createHash('md5').digest('hex')}"`;
  if (md5s.length === 1) return `"${md5s[0]}"`;
  const joined = Buffer.concat(md5s.map((md5) => Buffer.from(md5, 'hex')));
  return `"${createHash('md5').update(joined).digest('hex')}-${md5s.length}"`;
}

/** A staged upload claimed by one chunk's request: `writer` holds it from `claimedAt` (performance.now()). */
interface StagedClaim {
  row: TusUploadRow;
  writer: string;
  claimedAt: number;
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
    await this.o.writes.checkWritable(caller, ref, request.upsert ? 'upsert' : 'create');
    const cacheControl = request.metadata.get('cacheControl');
    const id = randomUUID();
    const staging = this.o.staging;
    await staging?.create(id);
    const row = await this.store
      .insert({
        id,
        bucket_id: bucket,
        name,
        owner_key: ownerKey,
        upload_length: request.length,
        upsert: request.upsert,
        staged: staging !== undefined,
        content_type: contentType,
        cache_control: cacheControlOf(cacheControl),
        user_metadata: metadataOf(request.metadata.get('metadata')),
      })
      .catch(async (error: unknown) => {
        await staging?.remove(id);
        throw error;
      });
    // An empty upload is complete as created: clients send no PATCH for it.
    if (row.upload_length === 0)
      await (row.staged ? this.completeStaged(caller, row, 0, null) : this.complete(caller, row, 0));
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
    // Staged uploads are claimed straight away (one round trip fewer per chunk); a failed claim is explained below.
    const claim = this.o.staging ? await this.claim(caller, id, offset) : undefined;
    if (claim) return this.appendStaged(caller, claim, offset, body, declaredLength);
    const row = await this.live(caller, id);
    if (offset !== row.upload_offset) throw errors.offsetMismatch(row.upload_offset);
    const room = row.upload_length - offset;
    if (declaredLength !== undefined && declaredLength > room) throw errors.tooLarge();
    // Standing at this offset but not claimed: another request is writing it.
    if (row.staged) throw errors.uploadBusy();
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

  /**
   * A chunk of a staged upload: claims the upload at `offset` (another writer at work is 423, a moved offset
   * 409), writes the body into the staging file, then records it, or commits the object when it is the last.
   */
  /** Claims a staged upload standing at `offset` for a new writer; undefined when it cannot be claimed now. */
  private async claim(caller: Caller, id: string, offset: number): Promise<StagedClaim | undefined> {
    const ownerKey = ownerKeyOf(caller);
    if (!ownerKey || !/^[0-9a-f-]{36}$/i.test(id)) return undefined;
    const writer = randomUUID();
    const claimedAt = performance.now();
    const row = await this.store.claim(id, ownerKey, offset, writer, LEASE_SECONDS);
    return row && { row, writer, claimedAt };
  }

  /**
   * A chunk of a claimed staged upload: writes the body into the staging file, then records it, or commits the
   * object when it is the last. The claim is renewed while the body flows and released at the end.
   */
  private async appendStaged(
    caller: Caller,
    { row, writer, claimedAt }: StagedClaim,
    offset: number,
    body: Readable,
    declaredLength: number | undefined,
  ): Promise<TusState> {
    const leaseEnd = (from: number) => from + (LEASE_SECONDS - LEASE_MARGIN_SECONDS) * 1000;
    const limits: ChunkLimits = {
      room: row.upload_length - offset,
      deadline: leaseEnd(claimedAt),
      idleMs: IDLE_MS,
    };
    if (declaredLength !== undefined && declaredLength > limits.room) {
      await this.store.release(row.id, writer);
      throw errors.tooLarge();
    }
    const renewal = setInterval(() => {
      const sent = performance.now();
      this.store.renew(row.id, writer, LEASE_SECONDS).then(
        (held) => {
          if (held) limits.deadline = leaseEnd(sent);
        },
        () => {},
      );
    }, RENEW_MS);
    try {
      const chunk = await this.o.staging!.write(row.id, offset, body, limits);
      if (chunk.size === 0) {
        await this.store.release(row.id, writer);
        return stateOf(row);
      }
      if (chunk.interrupted || chunk.size < limits.room) {
        const advanced = await this.store.recordChunk(row.id, writer, offset, chunk.size, chunk.md5 ?? UNHASHED);
        if (!advanced) throw errors.offsetMismatch(undefined);
        return stateOf(advanced);
      }
      await this.completeStaged(caller, row, offset, writer, chunk.md5 ?? UNHASHED);
      return { ...stateOf(row), offset: row.upload_length };
    } catch (error) {
      // Let the next attempt in at once (a refused completion has removed the upload already).
      await this.store.release(row.id, writer).catch(() => {});
      throw error;
    } finally {
      clearInterval(renewal);
    }
  }

  /**
   * Commits a staged upload: its staging file, checked again as the caller, is placed as the object's bytes in
   * the transaction that ends the upload (if it stands at `offset` and `writer` holds it; null: a new, empty one).
   */
  private async completeStaged(
    caller: Caller,
    row: TusUploadRow,
    offset: number,
    writer: string | null,
    lastMd5?: string,
  ): Promise<void> {
    const staging = this.o.staging!;
    const md5s = lastMd5 === undefined ? row.chunk_md5s : [...row.chunk_md5s, lastMd5];
    // Without hashing, the commit makes an mtime ETag (etag-algorithm.ts).
    const eTag = staging.md5 ? composedEtag(md5s) : undefined;
    const head = await staging.head(row.id);
    // The backend moves a second name of the file into place: a failed commit leaves the staging file as it was.
    const path = await staging.linkForCommit(row.id);
    try {
      await this.o.writes.commitFile(
        caller,
        { bucket: row.bucket_id, name: row.name },
        { path, size: row.upload_length, head, eTag },
        {
          declaredType: row.content_type ?? undefined,
          cacheControl: row.cache_control,
          userMetadata: row.user_metadata,
        },
        row.upsert ? 'upsert' : 'create',
        async (tx) => {
          const [ended] = await tx<{ done: boolean }[]>`
            select storage.tus_complete(${row.id}, ${row.owner_key}, ${offset}, ${writer}::uuid) as done`;
          if (!ended?.done) throw errors.offsetMismatch(undefined);
        },
      );
    } catch (error) {
      await rm(path, { force: true });
      await this.endOnRefusal(row, error);
      throw error;
    }
    await staging.remove(row.id);
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
    const row = ownerKey && /^[0-9a-f-]{36}$/i.test(id) ? await this.store.remove(id, ownerKey) : undefined;
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
    await this.sweepStaging();
    return removed;
  }

  /** Staging files no upload names any more (a process died between removing the row and the file). */
  private async sweepStaging(): Promise<void> {
    if (!this.o.staging) return;
    const stale = await this.o.staging.stale(STAGING_GRACE_MS);
    if (stale.size === 0) return;
    const live = await this.store.existing([...stale.keys()]);
    for (const [id, files] of stale)
      if (!live.has(id)) await Promise.all(files.map((file) => rm(file, { force: true })));
  }

  private async live(caller: Caller, id: string): Promise<TusUploadRow> {
    const ownerKey = ownerKeyOf(caller);
    const row = ownerKey && /^[0-9a-f-]{36}$/i.test(id) ? await this.store.find(id, ownerKey) : undefined;
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
            select storage.tus_complete(${row.id}, ${ownerKey}, ${offset}, ${null}::uuid) as done`;
          if (!ended?.done) throw errors.offsetMismatch(undefined);
        },
      );
    } catch (error) {
      if (lastPart) await this.removeParts({ bucket_id: row.bucket_id, parts: [lastPart] });
      await this.endOnRefusal(row, error);
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

  /** An ended upload's bytes: its parts, and its staging file. */
  private async removeBytes(row: Pick<TusUploadRow, 'id' | 'bucket_id' | 'parts' | 'staged'>): Promise<void> {
    await this.removeParts(row);
    if (row.staged) await this.o.staging?.remove(row.id);
  }

  private removeParts(row: Pick<TusUploadRow, 'bucket_id' | 'parts'>): Promise<void> {
    return removeQuietly(
      this.o.backend,
      row.parts.map((part) => objectKey(row.bucket_id, part)),
      this.o.log,
    );
  }
}
