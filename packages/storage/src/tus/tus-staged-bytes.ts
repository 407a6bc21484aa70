// An upload's bytes in place (filesystem backend): every chunk is written straight into the upload's one staging
// file at its byte range and fsynced (tus-staging.ts), under a claim on the row that lets one request write at a
// time. The completing chunk checks the type from the file's first bytes and places the file with a rename: every
// byte is written and fsynced once, as for a plain upload. The ETag is composed from the chunks' MD5s (or, with
// mtime ETags, made at the commit: etag-algorithm.ts).
import { createHash, randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { Caller } from '../caller-transaction.js';
import { errors } from '../storage-errors.js';
import type { ChunkLimits, TusStaging } from './tus-staging.js';
import {
  type EndedUpload,
  endUploadIn,
  stateOf,
  type TusBytesContext,
  type TusState,
  type TusUploadBytes,
} from './tus-upload-bytes.js';
import type { TusUploadRow } from './tus-upload-store.js';

// A writer's claim on a staged upload lasts LEASE_SECONDS and is renewed every RENEW_MS while its body flows.
// The writer stops writing LEASE_MARGIN_SECONDS before its lease could run out, and a body silent for IDLE_MS is
// taken as gone, so a claim is taken over only from a writer that no longer writes.
const LEASE_SECONDS = 60;
const LEASE_MARGIN_SECONDS = 20;
const RENEW_MS = 10_000;
const IDLE_MS = 30_000;
/** Staging files without an upload (a crash between the two) are removed after this long. */
const STAGING_GRACE_MS = 3600_000;

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

export class TusStagedBytes implements TusUploadBytes {
  readonly staged = true;

  constructor(
    private readonly ctx: TusBytesContext,
    private readonly staging: TusStaging,
  ) {}

  open(id: string): Promise<void> {
    return this.staging.create(id);
  }

  discard(id: string): Promise<void> {
    return this.staging.remove(id);
  }

  completeEmpty(caller: Caller, row: TusUploadRow): Promise<void> {
    return this.complete(caller, row, 0, null);
  }

  remove(row: EndedUpload): Promise<void> {
    return this.staging.remove(row.id);
  }

  /** Staging files no upload names any more (a process died between removing the row and the file). */
  async sweep(): Promise<void> {
    const stale = await this.staging.stale(STAGING_GRACE_MS);
    if (stale.size === 0) return;
    const live = await this.ctx.store.existing([...stale.keys()]);
    for (const [id, files] of stale)
      if (!live.has(id)) await Promise.all(files.map((file) => rm(file, { force: true })));
  }

  /**
   * A chunk of staged upload `id`, for `ownerKey`: claims the upload at `offset`, then writes the body. Undefined
   * when it cannot be claimed now; the protocol then finds out why (gone, moved, or another writer at work).
   */
  async appendClaimed(
    caller: Caller,
    ownerKey: string,
    id: string,
    offset: number,
    body: Readable,
    declaredLength: number | undefined,
  ): Promise<TusState | undefined> {
    const writer = randomUUID();
    const claimedAt = performance.now();
    const row = await this.ctx.store.claim(id, ownerKey, offset, writer, LEASE_SECONDS);
    return row && this.append(caller, { row, writer, claimedAt }, offset, body, declaredLength);
  }

  /**
   * A chunk of a claimed staged upload: writes the body into the staging file, then records it, or commits the
   * object when it is the last. The claim is renewed while the body flows and released at the end.
   */
  private async append(
    caller: Caller,
    { row, writer, claimedAt }: StagedClaim,
    offset: number,
    body: Readable,
    declaredLength: number | undefined,
  ): Promise<TusState> {
    const store = this.ctx.store;
    const leaseEnd = (from: number) => from + (LEASE_SECONDS - LEASE_MARGIN_SECONDS) * 1000;
    const limits: ChunkLimits = {
      room: row.upload_length - offset,
      deadline: leaseEnd(claimedAt),
      idleMs: IDLE_MS,
    };
    if (declaredLength !== undefined && declaredLength > limits.room) {
      await store.release(row.id, writer);
      throw errors.tooLarge();
    }
    const renewal = setInterval(() => {
      const sent = performance.now();
      store.renew(row.id, writer, LEASE_SECONDS).then(
        (held) => {
          if (held) limits.deadline = leaseEnd(sent);
        },
        () => {},
      );
    }, RENEW_MS);
    try {
      const chunk = await this.staging.write(row.id, offset, body, limits);
      if (chunk.size === 0) {
        await store.release(row.id, writer);
        return stateOf(row);
      }
      if (chunk.interrupted || chunk.size < limits.room) {
        const advanced = await store.recordChunk(row.id, writer, offset, chunk.size, chunk.md5 ?? UNHASHED);
        if (!advanced) throw errors.offsetMismatch(undefined);
        return stateOf(advanced);
      }
      await this.complete(caller, row, offset, writer, chunk.md5 ?? UNHASHED);
      return { ...stateOf(row), offset: row.upload_length };
    } catch (error) {
      // Let the next attempt in at once (a refused completion has removed the upload already).
      await store.release(row.id, writer).catch(() => {});
      throw error;
    } finally {
      clearInterval(renewal);
    }
  }

  /**
   * Commits a staged upload: its staging file, checked again as the caller, is placed as the object's bytes in
   * the transaction that ends the upload (if it stands at `offset` and `writer` holds it; null: a new, empty one).
   */
  private async complete(
    caller: Caller,
    row: TusUploadRow,
    offset: number,
    writer: string | null,
    lastMd5?: string,
  ): Promise<void> {
    const staging = this.staging;
    const md5s = lastMd5 === undefined ? row.chunk_md5s : [...row.chunk_md5s, lastMd5];
    // Without hashing, the commit makes an mtime ETag (etag-algorithm.ts).
    const eTag = staging.md5 ? composedEtag(md5s) : undefined;
    const head = await staging.head(row.id);
    // The backend moves a second name of the file into place: a failed commit leaves the staging file as it was.
    const path = await staging.linkForCommit(row.id);
    try {
      await this.ctx.writes.commitFile(
        caller,
        { bucket: row.bucket_id, name: row.name },
        { path, size: row.upload_length, head, eTag },
        {
          declaredType: row.content_type ?? undefined,
          cacheControl: row.cache_control,
          userMetadata: row.user_metadata,
        },
        row.upsert ? 'upsert' : 'create',
        (tx) => endUploadIn(tx, row, offset, writer),
      );
    } catch (error) {
      await rm(path, { force: true });
      await this.ctx.endOnRefusal(row, error);
      throw error;
    }
    await staging.remove(row.id);
  }
}
