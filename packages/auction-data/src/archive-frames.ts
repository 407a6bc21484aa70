// The archive's framing: a gzip stream of frames, each a one-letter type, a 4-byte big-endian length and that many
// bytes. Written and read as streams, so neither side holds more than a frame (at most CHUNK bytes of rows).
import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';

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

/** The frames of a (gunzipped) archive stream, in order. Throws on a truncated frame. */
export async function* readFrames(input: Readable): AsyncGenerator<Frame> {
  let buffered: Buffer = Buffer.alloc(0);
  for await (const chunk of input) {
    buffered = buffered.length ? Buffer.concat([buffered, chunk as Buffer]) : (chunk as Buffer);
    while (buffered.length >= 5) {
      const length = buffered.readUInt32BE(1);
      if (buffered.length < 5 + length) break;
      const type = buffered.toString('latin1', 0, 1) as FrameType;
      if (!'HTDEOBSM'.includes(type)) throw new Error(`not an auction archive (frame type ${JSON.stringify(type)})`);
      yield { type, body: buffered.subarray(5, 5 + length) };
      buffered = buffered.subarray(5 + length);
    }
  }
  if (buffered.length) throw new Error('the archive ends in the middle of a frame (truncated)');
}

export const parseJson = <T>(frame: Frame): T => JSON.parse(frame.body.toString('utf8')) as T;
