// The staging files of resumable uploads written in place (filesystem backend): one file per upload under
// DATA_DIR/storage/tus, on the same filesystem as the objects, so completion places it with a rename. Each chunk
// is written straight into its byte range and fsynced: every byte is written once, and hashed behind the writes.
//
// A chunk is written only by the holder of the upload's claim (tus-upload-store.ts), and stops at `deadline`
// (well before the claim's lease runs out) or when no byte came for `idleMs`, keeping what it wrote: so a claim
// taken over from a stalled writer is never written by two at once.
import { randomUUID } from 'node:crypto';
import { link, mkdir, open, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { BatchedFileWriter } from '../batched-file-writer.js';
import { SNIFF_BYTES } from '../content-sniffer.js';
import { FileMd5 } from '../file-md5.js';
import { errors } from '../storage-errors.js';

interface WrittenChunk {
  size: number;
  /** Undefined when the staging does not hash (STORAGE_FILE_ETAG_ALGORITHM=mtime). */
  md5: string | undefined;
  /** The body ended early (client gone, idle, or the deadline): the bytes before the break are written. */
  interrupted: boolean;
}

export interface ChunkLimits {
  /** Bytes the chunk may hold (what is left of Upload-Length); one more is a 413 and nothing is kept. */
  room: number;
  /** performance.now() after which no more is written. */
  deadline: number;
  /** A body silent this long is taken as gone. */
  idleMs: number;
}

export class TusStaging {
  constructor(
    readonly dir: string,
    /** Whether each chunk is hashed for the composed MD5 ETag (etag-algorithm.ts). */
    readonly md5 = true,
  ) {}

  fileOf(id: string): string {
    if (!/^[0-9a-f-]{36}$/.test(id)) throw new Error(`refusing staging id ${JSON.stringify(id)}`);
    return join(this.dir, id);
  }

  /** The empty staging file of a new upload. */
  async create(id: string): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const handle = await open(this.fileOf(id), 'wx');
    await handle.close();
  }

  /**
   * Writes the body at `offset`, fsyncs, and answers what was written. A body over `room` is refused with 413
   * at the first byte too many (the range it wrote lies past the offset, so it is as good as unwritten).
   * Throws the upload's 404 when the staging file is gone (terminated, swept).
   */
  async write(id: string, offset: number, body: Readable, limits: ChunkLimits): Promise<WrittenChunk> {
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(this.fileOf(id), 'r+');
    } catch (error) {
      body.resume();
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw errors.uploadNotFound();
      throw error;
    }
    const hash = this.md5 ? new FileMd5(this.fileOf(id), offset) : undefined;
    let size = 0;
    let interrupted = false;
    try {
      interrupted = await new Promise<boolean>((resolve, reject) => {
        let settled = false;
        let idle: NodeJS.Timeout | undefined;
        const writer = new BatchedFileWriter(
          handle,
          offset,
          (writtenTo) => {
            hash?.written(writtenTo);
            if (!settled && body.isPaused()) body.resume();
          },
          (error) => {
            // A failed write (the disk full): the answer goes out now, the rest of the body is read and dropped.
            finish(error, false);
            body.resume();
          },
        );
        const finish = (error: unknown, early: boolean) => {
          if (settled) return;
          settled = true;
          clearTimeout(idle);
          body.off('data', onData).off('end', onEnd).off('error', onBroken).off('close', onBroken);
          // Whatever was handed to the disk is settled before the answer (an fsync follows).
          writer.drained().then(() => (error ? reject(error) : resolve(early)), reject);
        };
        const stop = () => {
          finish(undefined, true);
          body.destroy();
        };
        const armIdle = () => {
          clearTimeout(idle);
          idle = setTimeout(stop, limits.idleMs);
        };
        const onData = (chunk: Buffer) => {
          if (size + chunk.length > limits.room) {
            finish(errors.tooLarge(), false);
            body.resume();
            return;
          }
          if (performance.now() > limits.deadline) return stop();
          size += chunk.length;
          armIdle();
          if (!writer.push(chunk)) body.pause();
        };
        const onEnd = () => finish(undefined, false);
        // A body destroyed without 'end' is a client gone: keep what arrived.
        const onBroken = () => setImmediate(() => finish(undefined, true));
        body.on('data', onData).on('end', onEnd).on('error', onBroken).on('close', onBroken);
        if (body.destroyed && !body.readableEnded) return finish(undefined, true);
        armIdle();
        body.resume();
      });
      const [md5] = await Promise.all([hash?.digest(offset + size), size > 0 && handle.sync()]);
      return { size, md5, interrupted };
    } catch (error) {
      hash?.abort();
      throw error;
    } finally {
      await handle.close();
    }
  }

  /** The first bytes of the staged upload, for the type check at completion. */
  async head(id: string): Promise<Buffer> {
    const handle = await open(this.fileOf(id), 'r');
    try {
      const head = Buffer.alloc(SNIFF_BYTES);
      const { bytesRead } = await handle.read(head, 0, SNIFF_BYTES, 0);
      return head.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  }

  /**
   * A second name for the staging file, for the backend to move into place: if the commit fails, the staging
   * file is still there for the last chunk to be sent again.
   */
  async linkForCommit(id: string): Promise<string> {
    const name = `${this.fileOf(id)}.commit-${randomUUID()}`;
    await link(this.fileOf(id), name);
    return name;
  }

  async remove(id: string): Promise<void> {
    await rm(this.fileOf(id), { force: true });
  }

  /** Staging files (and commit links) older than `olderThanMs`, by upload id (the sweep checks them against rows). */
  async stale(olderThanMs: number): Promise<Map<string, string[]>> {
    const found = new Map<string, string[]>();
    const cutoff = Date.now() - olderThanMs;
    for (const name of await readdir(this.dir).catch(() => [] as string[])) {
      const id = /^([0-9a-f-]{36})(\.commit-.*)?$/.exec(name)?.[1];
      if (!id) continue;
      const info = await stat(join(this.dir, name)).catch(() => undefined);
      if (info && info.mtimeMs < cutoff) found.set(id, [...(found.get(id) ?? []), join(this.dir, name)]);
    }
    return found;
  }
}
