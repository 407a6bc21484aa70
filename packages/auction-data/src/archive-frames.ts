// The archive's framing: a gzip stream of frames, each a one-letter type, a 4-byte big-endian length and that many
// bytes. Written and read as streams, so neither side holds more than a frame (each type's length is capped).
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { AuctionDataError, errors, shown } from './auction-data-errors.js';

export const MAGIC = 'auction-ops-auction-archive';
export const FORMAT_VERSION = 1;
export const CHUNK = 64 * 1024;

/**
 * H header (JSON, first), T table start (JSON), D rows (COPY text bytes), E table end, O object start (JSON),
 * B object bytes, S an encrypted table (JSON), M manifest (JSON, last).
 */
type FrameType = 'H' | 'T' | 'D' | 'E' | 'O' | 'B' | 'S' | 'M';

export interface Frame {
  type: FrameType;
  body: Buffer;
}

export class FrameWriter {
  constructor(private readonly out: Writable) {}

  async write(type: FrameType, body: Buffer | string = Buffer.alloc(0)): Promise<void> {
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    const head = Buffer.alloc(5);
    head.write(type, 0, 'latin1');
    head.writeUInt32BE(bytes.length, 1);
    // One write per frame (a zero-length write to zlib may never complete, and a false only asks to wait).
    if (!this.out.write(Buffer.concat([head, bytes]))) await once(this.out, 'drain');
  }

  json(type: FrameType, value: unknown): Promise<void> {
    return this.write(type, JSON.stringify(value));
  }
}

/**
 * The most bytes a frame of each type may announce. B frames are written in CHUNK pieces; D frames too since
 * 0.3.3, but earlier exporters put the COPY stream's pieces whole into a frame (CHUNK plus up to a large row).
 * The manifest grows with the number of objects; every other JSON frame is small.
 */
const FRAME_MAX: Readonly<Record<FrameType, number>> = {
  H: 1024 * 1024,
  T: 1024 * 1024,
  O: 1024 * 1024,
  S: 1024 * 1024,
  M: 64 * 1024 * 1024,
  D: 64 * 1024 * 1024,
  B: CHUNK,
  E: 0,
};

const isFrameType = (type: string): type is FrameType => Object.hasOwn(FRAME_MAX, type);

/**
 * The frames of a (gunzipped) archive stream, in order. A frame's length is checked against its type's cap before
 * anything of its body is read, and each body is copied once into a buffer of its announced size (linear).
 */
async function* readFrames(input: AsyncIterable<Buffer>): AsyncGenerator<Frame> {
  const head = Buffer.alloc(5);
  let headFill = 0;
  let type: FrameType = 'E';
  let body: Buffer | undefined;
  let bodyFill = 0;
  for await (const chunk of input) {
    let at = 0;
    while (at < chunk.length) {
      if (!body) {
        const n = Math.min(5 - headFill, chunk.length - at);
        chunk.copy(head, headFill, at, at + n);
        headFill += n;
        at += n;
        if (headFill < 5) break;
        const letter = head.toString('latin1', 0, 1);
        if (!isFrameType(letter)) throw errors.notAnArchive(`frame type ${shown(letter)}`);
        type = letter;
        const length = head.readUInt32BE(1);
        if (length > FRAME_MAX[type]) throw errors.frameTooLong(type, length, FRAME_MAX[type]);
        body = Buffer.allocUnsafe(length);
        bodyFill = 0;
      }
      const n = Math.min(body.length - bodyFill, chunk.length - at);
      chunk.copy(body, bodyFill, at, at + n);
      bodyFill += n;
      at += n;
      if (bodyFill === body.length) {
        yield { type, body };
        body = undefined;
        headFill = 0;
      }
    }
  }
  if (headFill || body) throw errors.notAnArchive('it ends in the middle of a frame (truncated)');
}

/**
 * Reads an archive stream: gunzips it (joined with pipeline, so no stream error goes unhandled), caps its
 * decompressed size and hashes all of it, so that a second pass can tell whether it read the same bytes.
 */
export class ArchiveReader {
  private readonly hash = createHash('sha256');
  private bytes = 0;

  constructor(
    private readonly input: Readable,
    private readonly maxBytes: number,
  ) {}

  async *frames(): AsyncGenerator<Frame> {
    const gunzip = createGunzip();
    // Stopping early goes through the signal: Node 22's pipeline never settles when its streams are only destroyed
    // (an archive refused half-way hung the import there), while an abort always rejects it.
    const stop = new AbortController();
    const done = pipeline(this.input, gunzip, { signal: stop.signal });
    // Its errors reach the loop through gunzip; this only keeps the promise from being an unhandled rejection.
    done.catch(() => {});
    try {
      yield* readFrames(this.counted(gunzip));
    } catch (error) {
      if (error instanceof AuctionDataError) throw error;
      throw errors.notAnArchive((error as Error).message);
    } finally {
      stop.abort();
      await done.catch(() => {});
    }
  }

  /** The sha256 of every decompressed byte read so far. */
  sha256(): string {
    return this.hash.copy().digest('hex');
  }

  private async *counted(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
    for await (const chunk of source) {
      this.bytes += chunk.length;
      if (this.bytes > this.maxBytes) throw errors.tooLarge(this.maxBytes);
      this.hash.update(chunk);
      yield chunk;
    }
  }
}

/** A JSON frame's body, or a refusal naming the frame (never a SyntaxError with a stack). */
export function parseJson(frame: Frame): unknown {
  try {
    return JSON.parse(frame.body.toString('utf8'));
  } catch {
    throw errors.notAnArchive(`the ${frame.type} frame is not JSON`);
  }
}
