// The COPY text of one batch as UTF-8 bytes, written in place into a buffer that grows as needed and is handed
// over whole (transferred to the main thread), so no row becomes a string of its own on the way.
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
