// Copies a file, or writes a stream to one, while computing its SHA-256 and size.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

const CHUNK = 1024 * 1024;

export interface CopiedFile {
  size: number;
  sha256: string;
}

/** Copies `from` to `to` in one pass, hashing the bytes as they go by (the file may be changing: we record what we read). */
export async function copyWithChecksum(from: string, to: string): Promise<CopiedFile> {
  const tap = hashingTap();
  // 1 MB reads: the default 64 KB makes a backup of large relation files several times slower.
  await pipeline(createReadStream(from, { highWaterMark: CHUNK }), tap.stream, createWriteStream(to, { mode: 0o600 }));
  return tap.result();
}

/** A pass-through stream that hashes and counts what flows through it. */
function hashingTap(): { stream: Transform; result(): CopiedFile } {
  const hash = createHash('sha256');
  let size = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  return { stream, result: () => ({ size, sha256: hash.digest('hex') }) };
}

/** Writes a stream to a file, hashing it on the way. */
export async function streamToFile(from: Readable, to: string): Promise<CopiedFile> {
  const tap = hashingTap();
  await pipeline(from, tap.stream, createWriteStream(to, { mode: 0o600 }));
  return tap.result();
}
