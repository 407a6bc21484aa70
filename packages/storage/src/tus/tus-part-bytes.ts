// An upload's bytes as backend parts (S3, or any backend without in-place staging): each chunk is spooled and
// placed on the backend as a part of its own, recorded by a compare-and-set on the offset; the completing chunk
// streams the parts in order through the ordinary upload path (a second write of every byte). It uses only the
// StorageBackend interface, so it needs no S3 code of its own: the AWS SDK stays behind @auction-ops/storage/s3.
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { Caller } from '../caller-transaction.js';
import { objectKey, removeQuietly, type StorageBackend, type StorageLog } from '../storage-backend.js';
import { errors } from '../storage-errors.js';
import { spoolChunk } from './tus-chunk-spool.js';
import {
  type EndedUpload,
  endUploadIn,
  stateOf,
  type TusBytesContext,
  type TusState,
  type TusUploadBytes,
} from './tus-upload-bytes.js';
import type { TusUploadRow } from './tus-upload-store.js';

export class TusPartBytes implements TusUploadBytes {
  readonly staged = false;

  constructor(
    private readonly ctx: TusBytesContext,
    private readonly backend: StorageBackend,
    private readonly tmpDir: string,
    private readonly log: StorageLog,
  ) {}

  // Parts are placed chunk by chunk: a new upload has nothing to ready, and the orphan sweep takes stray parts.
  async open(): Promise<void> {}
  async discard(): Promise<void> {}
  async sweep(): Promise<void> {}

  completeEmpty(caller: Caller, row: TusUploadRow): Promise<void> {
    return this.complete(caller, row, 0);
  }

  /** A chunk at `offset` of an upload the protocol has admitted (it stands there, and the body may fit). */
  async append(caller: Caller, row: TusUploadRow, offset: number, body: Readable): Promise<TusState> {
    const room = row.upload_length - offset;
    const chunk = await spoolChunk(body, this.tmpDir, room);
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

  remove(row: Pick<EndedUpload, 'bucket_id' | 'parts'>): Promise<void> {
    return removeQuietly(
      this.backend,
      row.parts.map((part) => objectKey(row.bucket_id, part)),
      this.log,
    );
  }

  /** Puts a chunk's bytes on the backend as a part of their own; answers the part's id. */
  private async placePart(bucket: string, file: string, size: number): Promise<string> {
    const part = randomUUID();
    await this.backend.put(objectKey(bucket, part), file, { size, contentType: 'application/offset+octet-stream' });
    return part;
  }

  private async recordPart(row: TusUploadRow, offset: number, size: number, part: string): Promise<TusUploadRow> {
    const advanced = await this.ctx.store.append(row.id, offset, size, part).catch(async (error: unknown) => {
      await this.remove({ bucket_id: row.bucket_id, parts: [part] });
      throw error;
    });
    if (advanced) return advanced;
    await this.remove({ bucket_id: row.bucket_id, parts: [part] });
    throw errors.offsetMismatch(undefined);
  }

  /**
   * Commits the object from the recorded parts and `lastPart` (the chunk from `offset` that reaches the length).
   * The upload's row is removed in the same transaction, only if it still stands at `offset`: a raced chunk or
   * completion loses with 409, and a failed commit leaves the upload where it was, to be retried.
   */
  private async complete(caller: Caller, row: TusUploadRow, offset: number, lastPart?: string): Promise<void> {
    const parts = { bucket_id: row.bucket_id, parts: lastPart ? [...row.parts, lastPart] : row.parts };
    try {
      await this.ctx.writes.upload(
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
        (tx) => endUploadIn(tx, row, offset, null),
      );
    } catch (error) {
      if (lastPart) await this.remove({ bucket_id: row.bucket_id, parts: [lastPart] });
      await this.ctx.endOnRefusal(row, error);
      throw error;
    }
    await this.remove(parts);
  }

  /** The parts' bytes in order, one backend read at a time. */
  private async *partBytes(row: Pick<TusUploadRow, 'bucket_id' | 'parts'>): AsyncGenerator<Buffer> {
    for (const part of row.parts) {
      const stream = await this.backend.get(objectKey(row.bucket_id, part));
      // for-await destroys the part's stream when the consumer stops early (a refused upload).
      for await (const chunk of stream) yield chunk as Buffer;
    }
  }
}
