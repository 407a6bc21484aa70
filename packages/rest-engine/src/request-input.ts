// What callers may hand the engine as headers and bodies, turned into the one form the parse stage reads:
// lower-case header names with one string each, and the body as UTF-8 text. Arguments of the wrong kind are
// TypeErrors here, at the API boundary, so that they never reach SQL as a misleading database error.

/** Headers as a fetch `Headers`, node's `IncomingHttpHeaders`, a record in any case, or `[name, value]` pairs. */
export type HeadersInput =
  | Headers
  | Readonly<Record<string, string | readonly string[] | number | undefined>>
  | Iterable<readonly [string, string]>;

/** A body as text, bytes, a stream (web or node), or an already parsed JSON value (Express's `req.body`). */
export type BodyInput =
  | string
  | Uint8Array
  | ArrayBuffer
  | ReadableStream<Uint8Array>
  | AsyncIterable<Uint8Array | string>
  | Record<string, unknown>
  | readonly unknown[]
  | null
  | undefined;

/** Thrown when a body is larger than the limit; adapters answer 413. */
export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`The request body is larger than the limit of ${limit} bytes`);
  }
}

const headerValue = (name: string, value: unknown): string | undefined => {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) return value.map(String).join(', ');
  throw new TypeError(`header "${name}" must be a string, a number or an array of strings`);
};

/**
 * Lower-case names, one string per name (repeated headers joined with ", " as HTTP allows). A record that is
 * already in that form is returned as it is.
 */
export function normalizeHeaders(input: HeadersInput | undefined): Readonly<Record<string, string | undefined>> {
  if (isNormalHeaders(input)) return input;
  const out: Record<string, string> = {};
  if (input === undefined || input === null) return out;
  if (typeof input !== 'object')
    throw new TypeError('headers must be a Headers object, a record or [name, value] pairs');
  const add = (name: string, value: unknown) => {
    const v = headerValue(name, value);
    if (v === undefined) return;
    const key = name.toLowerCase();
    out[key] = key in out ? `${out[key]}, ${v}` : v;
  };
  if (typeof (input as Headers).forEach === 'function' && typeof (input as Headers).get === 'function') {
    (input as Headers).forEach((value, name) => {
      add(name, value);
    });
  } else if (Symbol.iterator in input) {
    for (const pair of input as Iterable<readonly [string, string]>) {
      if (!Array.isArray(pair) || pair.length !== 2) throw new TypeError('header pairs must be [name, value]');
      add(String(pair[0]), pair[1]);
    }
  } else {
    for (const name in input) add(name, (input as Record<string, unknown>)[name]);
  }
  return out;
}

/** True when every name is already lower-case and every value a string: the common case costs one scan. */
function isNormalHeaders(input: unknown): input is Record<string, string | undefined> {
  if (input === null || typeof input !== 'object') return false;
  const proto = Object.getPrototypeOf(input);
  if (proto !== Object.prototype && proto !== null) return false;
  for (const name in input as Record<string, unknown>) {
    const v = (input as Record<string, unknown>)[name];
    if ((v !== undefined && typeof v !== 'string') || hasUpperCase(name)) return false;
  }
  return true;
}

/** Whether `name` would change in lower case, without building the lower-case copy. */
function hasUpperCase(name: string): boolean {
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if ((c >= 65 && c <= 90) || c > 127) return name !== name.toLowerCase();
  }
  return false;
}

const decoder = new TextDecoder();

const isPlainJson = (v: object): boolean => {
  const proto = Object.getPrototypeOf(v);
  return Array.isArray(v) || proto === Object.prototype || proto === null;
};

/** The body as text (undefined when absent); a stream is read up to `limit` bytes, then BodyTooLargeError. */
export async function readBody(body: BodyInput, limit = Number.POSITIVE_INFINITY): Promise<string | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return checkSize(body, Buffer.byteLength(body), limit);
  if (typeof body !== 'object') throw new TypeError('body must be a string, bytes, a stream or a JSON object/array');
  if (body instanceof Uint8Array) return checkSize(decoder.decode(body), body.byteLength, limit);
  if (body instanceof ArrayBuffer) return checkSize(decoder.decode(body), body.byteLength, limit);
  if (typeof (body as ReadableStream).getReader === 'function') return readChunks(body as ReadableStream, limit);
  if (Symbol.asyncIterator in body) return readChunks(body as AsyncIterable<Uint8Array | string>, limit);
  if (!isPlainJson(body)) throw new TypeError('body must be a string, bytes, a stream or a JSON object/array');
  const text = JSON.stringify(body);
  return checkSize(text, Buffer.byteLength(text), limit);
}

function checkSize(text: string, size: number, limit: number): string {
  if (size > limit) throw new BodyTooLargeError(limit);
  return text;
}

async function readChunks(stream: AsyncIterable<Uint8Array | string>, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buf =
      typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    size += buf.byteLength;
    // Leaving the loop early cancels a web stream and destroys a node stream, so the rest is not held.
    if (size > limit) throw new BodyTooLargeError(limit);
    chunks.push(buf);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}
