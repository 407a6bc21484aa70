// Writes a body's chunks to a file in batches: while one write is in flight the next chunks gather (up to
// `maxBuffered` bytes, then the source is asked to pause) and go out together in one writev. A 5 MB upload
// arriving in 64 KB pieces is then a handful of writes instead of eighty trips through the thread pool, and
// reading the socket overlaps writing the disk.
import type { FileHandle } from 'node:fs/promises';

const DEFAULT_MAX_BUFFERED = 1024 * 1024;

export class BatchedFileWriter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private writing: Promise<void> | undefined;
  private failure: unknown;

  constructor(
    private readonly handle: FileHandle,
    /** Where the first byte goes; the writes follow one another from there. */
    private position: number,
    /** Called when a write finished, with where the file's written bytes now end, and there is room again. */
    private readonly onRoom: (writtenTo: number) => void,
    /** Called once if a write fails. */
    private readonly onError: (error: unknown) => void,
    private readonly maxBuffered = DEFAULT_MAX_BUFFERED,
  ) {}

  /** Queues a chunk; false when the source should pause until onRoom. */
  push(chunk: Buffer): boolean {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (!this.writing) this.writeBatch();
    return this.pendingBytes < this.maxBuffered;
  }

  /** Resolves when everything pushed is written; rejects with a write's failure. */
  async drained(): Promise<void> {
    while (this.writing !== undefined) await this.writing;
    if (this.failure) throw this.failure;
  }

  private writeBatch(): void {
    const batch = this.pending;
    const bytes = this.pendingBytes;
    const at = this.position;
    this.pending = [];
    this.pendingBytes = 0;
    this.position += bytes;
    this.writing = writeFully(this.handle, batch, bytes, at).then(
      () => {
        this.writing = undefined;
        if (this.pending.length > 0) this.writeBatch();
        this.onRoom(at + bytes);
      },
      (error: unknown) => {
        this.writing = undefined;
        this.pending = [];
        this.failure = error;
        this.onError(error);
      },
    );
  }
}

/**
 * writev until every byte is written. A write may be short (the disk filled part way, a signal): the rest is
 * written again from where it stopped, so a full disk surfaces as the ENOSPC of the next write, not as a
 * "short write" of our own that nobody can tell from a bug.
 */
async function writeFully(handle: FileHandle, buffers: Buffer[], bytes: number, position: number): Promise<void> {
  let left = buffers;
  let done = 0;
  while (done < bytes) {
    const { bytesWritten } = await handle.writev(left, position + done);
    // No progress at all without an error: take it as the disk being full rather than loop.
    if (bytesWritten === 0)
      throw Object.assign(new Error('no space left on device (a write wrote nothing)'), { code: 'ENOSPC' });
    done += bytesWritten;
    left = remainderOf(left, bytesWritten);
  }
}

/** The buffers past the first `skip` bytes (views, no copies). */
function remainderOf(buffers: Buffer[], skip: number): Buffer[] {
  let index = 0;
  let rest = skip;
  while (index < buffers.length && rest >= buffers[index]!.length) rest -= buffers[index++]!.length;
  const out = buffers.slice(index);
  if (rest > 0 && out.length > 0) out[0] = out[0]!.subarray(rest);
  return out;
}
