// HTTP Range (RFC 9110 14.1.2) for downloads: one byte range; several ranges are answered with the whole body.
import { errors } from './storage-errors.js';

export interface ByteRange {
  start: number;
  /** Inclusive. */
  end: number;
}

/** undefined = serve everything; throws 416 for a well-formed but unsatisfiable range. */
export function parseRange(header: string | undefined, size: number): ByteRange | undefined {
  const match = header?.trim().match(/^bytes=(\d*)-(\d*)$/);
  if (!match) return undefined;
  const [, first, last] = match as unknown as [string, string, string];
  if (first === '' && last === '') return undefined;
  let start: number;
  let end: number;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0) throw errors.rangeNotSatisfiable();
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(first);
    end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
    if (last !== '' && Number(last) < start) return undefined;
  }
  if (start >= size || size === 0) throw errors.rangeNotSatisfiable();
  return { start, end };
}
