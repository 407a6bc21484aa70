// The COPY data of one batch (binary format: copy-binary.ts), written in place into a buffer that grows as needed and
// is handed over whole (transferred to the main thread), so no row becomes a string of its own on the way.
const MIN_BYTES = 64 * 1024;
const encoder = new TextEncoder();

export class CopyBuffer {
  bytes = new Uint8Array(MIN_BYTES);
  length = 0;

  /** Room for `n` more bytes. */
  reserve(n: number): void {
    if (this.length + n <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.length + n));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }

  byte(c: number): void {
    this.reserve(1);
    this.bytes[this.length++] = c;
  }

  /** `from[start, end)` as it is; room reserved by the caller. */
  copy(from: Uint8Array, start: number, end: number): void {
    const bytes = this.bytes;
    let at = this.length;
    // A loop beats set() with its subarray for the short fields most CSV holds.
    if (end - start > 32) {
      bytes.set(from.subarray(start, end), at);
      at += end - start;
    } else for (let i = start; i < end; i++) bytes[at++] = from[i];
    this.length = at;
  }

  /** Big-endian integers, as COPY's binary format has them; room reserved by the caller. */
  int16(v: number): void {
    this.bytes[this.length++] = (v >>> 8) & 0xff;
    this.bytes[this.length++] = v & 0xff;
  }

  int32(v: number): void {
    this.int32At(this.length, v);
    this.length += 4;
  }

  int32At(at: number, v: number): void {
    const bytes = this.bytes;
    bytes[at] = v >>> 24;
    bytes[at + 1] = (v >>> 16) & 0xff;
    bytes[at + 2] = (v >>> 8) & 0xff;
    bytes[at + 3] = v & 0xff;
  }

  /** A whole number of at most 2^53 in magnitude as 8 bytes, two's complement. */
  int64(v: number): void {
    const high = Math.floor(v / 0x1_0000_0000);
    this.int32(high | 0);
    this.int32(v - high * 0x1_0000_0000);
  }

  text(value: string): void {
    this.reserve(value.length * 3);
    this.length += encoder.encodeInto(value, this.bytes.subarray(this.length)).written;
  }

  /** The bytes written, handed over; the next batch starts in a new buffer about as large. */
  take(): Uint8Array {
    const written = this.bytes.subarray(0, this.length);
    this.bytes = new Uint8Array(Math.max(MIN_BYTES, this.length + (this.length >> 3)));
    this.length = 0;
    return written;
  }
}
