// Object names from URLs: split the still-encoded path into bucket and name, decoding segment by segment so
// an encoded separator (%2F, %5C) can never introduce a folder, and refuse anything unsafe as a key.
import { errors } from './storage-errors.js';

const MAX_NAME_BYTES = 1024;
const BUCKET_ID = /^[a-z0-9][a-z0-9._-]{0,62}$/;
// Control characters (NUL included) have no place in a key and confuse logs and file systems.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f]/;

export interface ObjectRef {
  bucket: string;
  name: string;
}

/** Escapes LIKE/ILIKE wildcards (the default escape character, backslash, included). */
export const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * The names of the /object routes that take a bucket after them. A bucket of such a name would make
 * `/object/<route>/...` readable two ways, so none may have one (routes/storage/object-routes.ts is held to
 * this list by its test).
 */
export const OBJECT_ROUTE_NAMES: readonly string[] = [
  'list',
  'list-v2',
  'move',
  'copy',
  'sign',
  'upload',
  'public',
  'authenticated',
  'info',
];

export function checkBucketId(id: string): string {
  if (!BUCKET_ID.test(id) || OBJECT_ROUTE_NAMES.includes(id)) throw errors.invalidRequest('Invalid bucket name');
  return id;
}

/** A JSON body's list of 1 to `max` object names (`field` names it in the error), each checked. */
export function checkObjectNames(value: unknown, field: string, max: number): string[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > max || !value.every((p) => typeof p === 'string'))
    throw errors.invalidRequest(`${field} must be a list of 1 to ${max} object names`);
  return (value as string[]).map(checkObjectName);
}

/** Checks an already-decoded object name (from a JSON body or a decoded path). Returns it unchanged. */
export function checkObjectName(name: string): string {
  if (typeof name !== 'string' || name.length === 0) throw errors.invalidKey('Invalid key: empty');
  if (Buffer.byteLength(name, 'utf8') > MAX_NAME_BYTES)
    throw errors.invalidKey(`Invalid key: longer than ${MAX_NAME_BYTES} bytes`);
  if (CONTROL.test(name)) throw errors.invalidKey('Invalid key: control character');
  if (name.startsWith('/')) throw errors.invalidKey('Invalid key: absolute path');
  if (name.includes('\\')) throw errors.invalidKey('Invalid key: backslash');
  for (const segment of name.split('/')) {
    if (segment === '') throw errors.invalidKey('Invalid key: empty path segment');
    if (segment === '.' || segment === '..') throw errors.invalidKey('Invalid key: relative path segment');
  }
  return name;
}

function decodeSegment(segment: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    throw errors.invalidKey('Invalid key: bad percent-encoding');
  }
  if (decoded.includes('/') || decoded.includes('\\')) throw errors.invalidKey('Invalid key: encoded separator');
  return decoded;
}

/** Splits a raw (percent-encoded) `bucket[/name]` tail. `name` is '' when the tail names only the bucket. */
export function parseObjectTail(rawTail: string): ObjectRef {
  if (rawTail.startsWith('/')) throw errors.invalidKey('Invalid key: absolute path');
  const segments = rawTail.split('/');
  const bucket = checkBucketId(decodeSegment(segments[0] ?? ''));
  const rest = segments.slice(1);
  if (rest.length === 0 || (rest.length === 1 && rest[0] === '')) return { bucket, name: '' };
  return { bucket, name: checkObjectName(rest.map(decodeSegment).join('/')) };
}
