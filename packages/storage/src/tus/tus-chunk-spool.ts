// Receives one PATCH body into a spool file. Unlike a plain upload, a body that breaks off is not thrown away:
// whatever reached the disk is fsynced and kept, so the client resumes from there (the last durable point).
// A body running past the declared Upload-Length is refused at the first byte too many and nothing is kept.
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { isOutOfSpace } from '@auction-ops/database';
import { errors, StorageError } from '../storage-errors.js';

interface SpooledChunk {
  file: string;
  size: number;
  /** The body ended early (client gone); the bytes before the break are in the file. */
  interrupted: boolean;
}

/** Passes at most `limit` bytes; one more fails the stream with 413. */
function byteLimit(limit: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > limit) return done(errors.tooLarge());
      done(null, chunk);
    },
  });
}

async function fsyncFile(file: string): Promise<void> {
  const handle = await open(file, 'r+');
  await handle.sync().finally(() => handle.close());
}

export async function spoolChunk(source: Readable, tmpDir: string, limit: number): Promise<SpooledChunk> {
  await mkdir(tmpDir, { recursive: true });
  const file = join(tmpDir, `${randomUUID()}.tus`);
  let interrupted = false;
  try {
    await pipeline(source, byteLimit(limit), createWriteStream(file, { flags: 'wx' }));
  } catch (error) {
    // A refusal, or a disk full (what arrived is not worth keeping: the next chunk would fail the same way).
    if (error instanceof StorageError || isOutOfSpace(error)) {
      await rm(file, { force: true });
      throw error;
    }
    interrupted = true;
  }
  try {
    // After a break the write stream has settled its last write before closing: the file size is what arrived.
    const { size } = await stat(file);
    await fsyncFile(file);
    return { file, size, interrupted };
  } catch (error) {
    await rm(file, { force: true });
    // Gone before the first byte: the file was never opened.
    if (interrupted && (error as NodeJS.ErrnoException).code === 'ENOENT') return { file, size: 0, interrupted };
    throw error;
  }
}
