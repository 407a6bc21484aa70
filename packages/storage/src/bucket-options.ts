// Validation of the bucket options storage-js sends to createBucket/updateBucket: `public`, `file_size_limit`
// (bytes as a number, or a string such as "5MB" as Supabase accepts) and `allowed_mime_types` (exact types or
// `type/*` wildcards). Anything else in the body is ignored, as Supabase does.
import { CONTENT_CHECKS, type ContentCheck } from './content-type-policy.js';
import { checkBucketId } from './object-path.js';
import { errors } from './storage-errors.js';

interface BucketOptions {
  public?: boolean;
  /** null clears the bucket's own limit (the server-wide one applies). */
  file_size_limit?: number | null;
  allowed_mime_types?: string[] | null;
  /** How declared types are checked against the bytes (content-type-policy.ts); not part of Supabase's API. */
  content_check?: ContentCheck;
}

// Decimal units, as Supabase's storage reads them: '20mb' is 20,000,000 bytes.
const UNITS: Record<string, number> = { b: 1, kb: 1000, mb: 1000 ** 2, gb: 1000 ** 3 };
const MIME = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/(\*|[a-z0-9][a-z0-9!#$&^_.+-]{0,126})$/;
const MAX_TYPES = 100;

export function parseFileSizeLimit(value: unknown): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === null) return null;
  let bytes: number | undefined;
  if (typeof value === 'number') bytes = value;
  else if (typeof value === 'string') {
    const match = /^\s*(\d+)\s*(b|kb|mb|gb)?\s*$/i.exec(value);
    if (match) bytes = Number(match[1]) * UNITS[(match[2] ?? 'b').toLowerCase()]!;
  }
  if (bytes === undefined || !Number.isSafeInteger(bytes) || bytes < 1) {
    throw errors.invalidRequest('file_size_limit must be a positive number of bytes or a size such as "5MB"');
  }
  return bytes;
}

export function parseAllowedMimeTypes(value: unknown): string[] | null | undefined {
  if (value === undefined) return undefined;
  if (value === null) return null;
  if (
    !Array.isArray(value) ||
    value.length > MAX_TYPES ||
    !value.every((t) => typeof t === 'string' && MIME.test(t.toLowerCase()))
  ) {
    throw errors.invalidRequest(
      `allowed_mime_types must be a list of up to ${MAX_TYPES} types such as image/png or image/*`,
    );
  }
  // An empty list means "no restriction" in Supabase; store it as null so there is one representation.
  return value.length === 0 ? null : [...new Set((value as string[]).map((t) => t.toLowerCase()))];
}

function parseContentCheck(value: unknown): ContentCheck | undefined {
  if (value === undefined || value === null) return undefined;
  if (!CONTENT_CHECKS.includes(value as ContentCheck))
    throw errors.invalidRequest('content_check must be strict or declared');
  return value as ContentCheck;
}

export function parseBucketOptions(body: Record<string, unknown>): BucketOptions {
  if (body.public !== undefined && body.public !== null && typeof body.public !== 'boolean') {
    throw errors.invalidRequest('public must be true or false');
  }
  return {
    public: typeof body.public === 'boolean' ? body.public : undefined,
    file_size_limit: parseFileSizeLimit(body.file_size_limit),
    allowed_mime_types: parseAllowedMimeTypes(body.allowed_mime_types),
    content_check: parseContentCheck(body.content_check),
  };
}

/** The id of a new bucket: `id`, else `name` (storage-js sends both, equal). */
export function newBucketId(body: Record<string, unknown>): string {
  const id = body.id ?? body.name;
  if (typeof id !== 'string') throw errors.invalidRequest('id is required');
  if (body.name !== undefined && body.name !== id) throw errors.invalidRequest('name must equal id');
  return checkBucketId(id);
}
