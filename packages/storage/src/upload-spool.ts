// Streams an upload to a spool file, checking as the bytes arrive: the size limit (stop at the first byte
// over it) and the image type recognised from the first bytes. Memory use is one chunk at a time.
// On failure the spool file is removed and the rest of the request body is discarded (up to a cap) so the
// client still gets the error response instead of a reset connection.
import { randomUUID } from 'node:crypto';
import { type FileHandle, open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { BatchedFileWriter } from './batched-file-writer.js';
import { inDirectory } from './directory-on-demand.js';
import { FileMd5 } from './file-md5.js';
import { SNIFF_BYTES } from './content-sniffer.js';
import { type ContentCheck, decideType } from './content-type-policy.js';
import { errors, StorageError } from './storage-errors.js';

interface SpoolOptions {
  tmpDir: string;
  /** Bytes. */
  limit: number;
  declaredType: string | undefined;
  /** The bucket's allowed types; null accepts any type (a declared image type must still match its bytes). */
  allowedTypes: readonly string[] | null;
  /** The bucket's rule for declared types (content-type-policy.ts); strict unless given. */
  contentCheck?: ContentCheck;
  /** MD5 the bytes for the ETag (etag-algorithm.ts); unless false. */
  md5?: boolean;
}

interface Spooled {
  file: string;
  size: number;
  /** Undefined when not asked for. */
  md5: string | undefined;
  mimetype: string;
  /** Settles when the file is fsynced and closed: its bytes may be placed once it resolves. */
  durable: Promise<void>;
}

/** Reads and drops the rest of a refused body; past `cap` bytes the connection is not worth keeping. */
function discard(source: Readable, cap: number): void {
  let seen = 0;
  source.on('error', () => {});
  source.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > cap) source.destroy();
  });
  source.resume();
}

export async function spoolUpload(source: Readable, options: SpoolOptions): Promise<Spooled> {
  // The source may fail while the spool file is being opened; until the listeners below take over, this one keeps
  // that error from being unhandled (a stream that errors with no listener throws), and the check after them sees
  // the source destroyed.
  const ignoreEarlyError = () => {};
  source.on('error', ignoreEarlyError);
  const file = join(options.tmpDir, `${randomUUID()}.part`);
  let handle: FileHandle;
  try {
    handle = await inDirectory(options.tmpDir, () => open(file, 'wx'));
  } catch (error) {
    source.off('error', ignoreEarlyError);
    throw error;
  }
  // Hashed off the event loop, behind the writes (file-md5.ts).
  const hash = options.md5 === false ? undefined : new FileMd5(file, 0);
  let size = 0;
  let head = Buffer.alloc(0);
  let mimetype: string | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      let failed = false;
      const detach = () => {
        source.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      };
      const fail = (error: unknown) => {
        if (failed) return;
        failed = true;
        detach();
        if (!source.destroyed) discard(source, options.limit * 2);
        reject(error);
      };
      // Backpressure: past the writer's buffer, the source waits for the disk.
      const onWritten = (writtenTo: number) => {
        hash?.written(writtenTo);
        if (!failed && source.isPaused()) source.resume();
      };
      const writer = new BatchedFileWriter(handle, 0, onWritten, fail);
      const onData = (chunk: Buffer) => {
        size += chunk.length;
        if (size > options.limit) return fail(errors.tooLarge());
        if (mimetype === undefined && head.length < SNIFF_BYTES) {
          head = Buffer.concat([head, chunk.subarray(0, SNIFF_BYTES - head.length)]);
          if (head.length >= SNIFF_BYTES) {
            try {
              mimetype = decideType(head, options.declaredType, options.allowedTypes, options.contentCheck);
            } catch (error) {
              return fail(error);
            }
          }
        }
        if (!writer.push(chunk)) source.pause();
      };
      const onEnd = () => {
        if (failed) return;
        try {
          mimetype ??= decideType(head, options.declaredType, options.allowedTypes, options.contentCheck);
        } catch (error) {
          return fail(error);
        }
        failed = true;
        detach();
        writer.drained().then(resolve, reject);
      };
      const aborted = () => new StorageError(400, 'InvalidRequest', 'The upload was interrupted');
      const onError = () => fail(aborted());
      // A source destroyed without 'end' (client gone) must not leave the promise pending.
      const onClose = () => setImmediate(() => fail(aborted()));
      source.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
      source.off('error', ignoreEarlyError);
      // Gone before we listened (the connection broke while the bucket was looked up): its 'close' has passed.
      if (source.destroyed && !source.readableEnded) return fail(aborted());
      source.resume();
    });
    // The fsync goes on while the hashing thread finishes and the caller opens its transaction and writes the row;
    // the bytes are placed only once it is done. Handled here too, so an upload refused before it waits for
    // durability leaves no unhandled rejection.
    const durable = handle.sync().finally(() => handle.close());
    durable.catch(() => {});
    try {
      return { file, size, md5: await hash?.digest(size), mimetype: mimetype!, durable };
    } catch (error) {
      await durable.catch(() => {});
      throw error;
    }
  } catch (error) {
    hash?.abort();
    await handle.close().catch(() => {});
    await rm(file, { force: true });
    throw error;
  }
}
