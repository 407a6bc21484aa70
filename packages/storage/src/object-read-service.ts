// Reads: buckets, object lookup for downloads (as the caller, as the public, or through a signed URL),
// Supabase-style folder listings, and signed download URLs.
import type postgres from 'postgres';
import type { Readable } from 'node:stream';
import { ANON, asCaller, readAsCaller, SERVICE, type Caller } from './caller-transaction.js';
import { OBJECT_COLUMNS, type ObjectRow } from './object-row.js';
import { checkObjectName, checkObjectNames, escapeLike, type ObjectRef } from './object-path.js';
import { listV2, type ListV2Result } from './object-list-v2.js';
import type { ContentCheck } from './content-type-policy.js';
import type { ByteRange } from './range-header.js';
import type { SignedUrlSigner } from './signed-url-token.js';
import { objectKey, type StorageBackend } from './storage-backend.js';
import { errors } from './storage-errors.js';

/** A bucket as Supabase's storage answers it: its owner is `owner` (storage-js's Bucket type). */
export interface BucketRow {
  id: string;
  name: string;
  owner: string | null;
  public: boolean;
  file_size_limit: number | null;
  allowed_mime_types: string[] | null;
  created_at: Date;
  updated_at: Date;
}

/** What an upload into a bucket is checked against. */
interface UploadLimits extends BucketRow {
  content_check: ContentCheck;
}

export type ObjectAccess = { kind: 'caller'; caller: Caller } | { kind: 'public' } | { kind: 'signed'; token: string };

export interface ListOptions {
  prefix?: unknown;
  limit?: unknown;
  offset?: unknown;
  sortBy?: unknown;
  search?: unknown;
}

export const BUCKET_COLUMNS =
  'id, name, owner_id as owner, public, file_size_limit, allowed_mime_types, created_at, updated_at';

const SORT_COLUMNS = new Set(['name', 'created_at', 'updated_at', 'last_accessed_at']);
const MAX_LIST = 1000;
const BUCKET_CACHE_MS = 5000;
// Public downloads trust a looked-up object row this long (see findPublic); at most this many rows are kept.
const PUBLIC_ROW_CACHE_MS = 1000;
const PUBLIC_ROW_CACHE_MAX = 10_000;
const MAX_SIGN_SECONDS = 10 * 365 * 24 * 3600;

function intOption(value: unknown, fallback: number, min: number, max: number, what: string): number {
  if (value === undefined || value === null) return fallback;
  const n = typeof value === 'string' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max)
    throw errors.invalidRequest(`${what} must be an integer between ${min} and ${max}`);
  return n;
}

export function expiresInOf(value: unknown): number {
  return intOption(value, Number.NaN, 1, MAX_SIGN_SECONDS, 'expiresIn');
}

export class ObjectReadService {
  constructor(
    private readonly sql: postgres.Sql,
    private readonly backend: StorageBackend,
    private readonly signer: SignedUrlSigner,
  ) {}

  private readonly bucketCache = new Map<string, { row: UploadLimits; at: number }>();
  private readonly publicRows = new Map<string, { row: ObjectRow; at: number }>();
  /** Bumped by forgetPublicRows: a lookup that started before a write on this instance is used, not kept. */
  private publicGeneration = 0;

  /**
   * Upload limits of a bucket (size, types), cached for a few seconds: every upload needs them before its
   * body is read, and a transaction per upload for configuration that rarely changes is the largest fixed
   * cost of small uploads. Bucket rows are readable by every role, so one cache serves all callers.
   */
  async uploadLimits(id: string): Promise<UploadLimits> {
    const hit = this.bucketCache.get(id);
    if (hit && Date.now() - hit.at < BUCKET_CACHE_MS) return hit.row;
    const [found] = await asCaller(
      this.sql,
      SERVICE,
      (tx) =>
        tx<UploadLimits[]>`select ${tx.unsafe(BUCKET_COLUMNS)}, content_check from storage.buckets where id = ${id}`,
    );
    if (!found) throw errors.bucketNotFound();
    const row = { ...found, file_size_limit: found.file_size_limit === null ? null : Number(found.file_size_limit) };
    this.bucketCache.set(id, { row, at: Date.now() });
    return row;
  }

  /** After a bucket change on this instance: the next upload reads the new limits. */
  forgetBucket(id: string): void {
    this.bucketCache.delete(id);
    this.forgetPublicRows();
  }

  /** After any write through this instance (the server calls it after every storage request but GET and HEAD). */
  forgetPublicRows(): void {
    this.publicGeneration++;
    this.publicRows.clear();
  }

  async getBucket(caller: Caller, id: string): Promise<BucketRow> {
    const [row] = await asCaller(
      this.sql,
      caller,
      (tx) => tx<BucketRow[]>`select ${tx.unsafe(BUCKET_COLUMNS)} from storage.buckets where id = ${id}`,
    );
    if (!row) throw errors.bucketNotFound();
    return { ...row, file_size_limit: row.file_size_limit === null ? null : Number(row.file_size_limit) };
  }

  /** The object row if this access may read it; 404 otherwise (hidden and missing look the same). */
  async findObject(access: ObjectAccess, ref: ObjectRef): Promise<ObjectRow> {
    checkObjectName(ref.name);
    let rows: ObjectRow[];
    // One round trip each (readAsCaller): on a render or a download this lookup is all the database work.
    if (access.kind === 'caller') {
      rows = await readAsCaller(
        this.sql,
        access.caller,
        (conn) => conn<ObjectRow[]>`select ${conn.unsafe(OBJECT_COLUMNS)} from storage.objects
          where bucket_id = ${ref.bucket} and name = ${ref.name}`,
      );
    } else if (access.kind === 'public') {
      return this.findPublic(ref);
    } else {
      if (this.signer.verify(access.token) !== `${ref.bucket}/${ref.name}`)
        throw errors.invalidRequest('Invalid signature');
      // The signature is the authorization: it was issued to a caller who could read the object.
      rows = await readAsCaller(
        this.sql,
        SERVICE,
        (conn) => conn<ObjectRow[]>`select ${conn.unsafe(OBJECT_COLUMNS)} from storage.objects
          where bucket_id = ${ref.bucket} and name = ${ref.name}`,
      );
    }
    if (!rows[0]) throw errors.objectNotFound();
    return rows[0];
  }

  /**
   * A public object's row. On a download the lookup is the only database work, and under load its round trip is
   * most of the time before the first byte, so a row found is trusted for a second: a public object is served with
   * its Cache-Control (an hour by default) anyway. Writes through this instance forget the rows at once; a change
   * made elsewhere (another instance, SQL) shows within the second.
   */
  private async findPublic(ref: ObjectRef): Promise<ObjectRow> {
    const key = `${ref.bucket}/${ref.name}`;
    const hit = this.publicRows.get(key);
    if (hit && Date.now() - hit.at < PUBLIC_ROW_CACHE_MS) return hit.row;
    const generation = this.publicGeneration;
    // Public URLs need a public bucket whatever the policies say, and are read as anon.
    const rows = await readAsCaller(
      this.sql,
      ANON,
      (conn) => conn<ObjectRow[]>`
        select ${conn.unsafe(OBJECT_COLUMNS.replace(/(^|, )/g, '$1o.'))} from storage.objects o join storage.buckets b
          on b.id = o.bucket_id
        where b.public and o.bucket_id = ${ref.bucket} and o.name = ${ref.name}`,
    );
    const row = rows[0];
    if (!row) {
      this.publicRows.delete(key);
      throw errors.objectNotFound();
    }
    if (generation === this.publicGeneration) {
      this.publicRows.delete(key);
      this.publicRows.set(key, { row, at: Date.now() });
      if (this.publicRows.size > PUBLIC_ROW_CACHE_MAX) this.publicRows.delete(this.publicRows.keys().next().value!);
    }
    return row;
  }

  /** The object's bytes as a file on this machine's disk (filesystem backend), else undefined. */
  localPath(row: ObjectRow): string | undefined {
    return this.backend.localPath?.(objectKey(row.bucket_id, row.version));
  }

  openBytes(row: ObjectRow, range?: ByteRange): Promise<Readable> {
    return this.backend.get(objectKey(row.bucket_id, row.version), range);
  }

  /** POST /object/list: entries directly under `prefix`, folders first (null id and metadata), then files. */
  async list(caller: Caller, bucket: string, options: ListOptions) {
    let prefix = typeof options.prefix === 'string' ? options.prefix.replace(/^\/+/, '') : '';
    if (prefix && !prefix.endsWith('/')) prefix += '/';
    if (Buffer.byteLength(prefix) > 1024) throw errors.invalidRequest('prefix is too long');
    const search = typeof options.search === 'string' ? options.search : '';
    const limit = intOption(options.limit, 100, 1, MAX_LIST, 'limit');
    const offset = intOption(options.offset, 0, 0, Number.MAX_SAFE_INTEGER, 'offset');
    const sortBy = (options.sortBy ?? {}) as { column?: unknown; order?: unknown };
    const column = typeof sortBy.column === 'string' && SORT_COLUMNS.has(sortBy.column) ? sortBy.column : 'name';
    const order = typeof sortBy.order === 'string' && sortBy.order.toLowerCase() === 'desc' ? 'desc' : 'asc';
    // Identifiers come from the two whitelists above; every value is a parameter.
    const text = `
      with matches as (
        select o.id, o.updated_at, o.created_at, o.last_accessed_at, o.metadata, substr(o.name, $2) as rest
        from storage.objects o
        where o.bucket_id = $1 and o.name like $3 escape '\\' and substr(o.name, $2) ilike $4 escape '\\'
      ), entries as (
        select distinct split_part(rest, '/', 1) as name, null::uuid as id, null::timestamptz as updated_at,
          null::timestamptz as created_at, null::timestamptz as last_accessed_at, null::jsonb as metadata, 0 as kind
        from matches where strpos(rest, '/') > 0
        union all
        select rest, id, updated_at, created_at, last_accessed_at, metadata, 1 from matches where strpos(rest, '/') = 0
      )
      select name, id, updated_at, created_at, last_accessed_at, metadata from entries
      order by kind, ${column} ${order} nulls last, name ${order}
      limit $5 offset $6`;
    // substr counts characters, so the prefix is measured in code points, not UTF-16 units.
    const params = [bucket, [...prefix].length + 1, `${escapeLike(prefix)}%`, `${escapeLike(search)}%`, limit, offset];
    return asCaller(this.sql, caller, (tx) => tx.unsafe(text, params));
  }

  /** POST /object/list-v2/{bucket}: see object-list-v2.ts. */
  listV2(caller: Caller, bucket: string, body: Record<string, unknown>): Promise<ListV2Result> {
    return listV2(this.sql, caller, bucket, body);
  }

  /** POST /object/sign/{bucket}/{name}: the caller must be able to read the object now. */
  async sign(
    caller: Caller,
    ref: ObjectRef,
    expiresIn: unknown,
    transform?: Record<string, unknown>,
  ): Promise<{ signedURL: string }> {
    const seconds = expiresInOf(expiresIn);
    await this.findObject({ kind: 'caller', caller }, ref);
    return { signedURL: this.signedPath(ref, seconds, transform) };
  }

  /** The image transformation a signed render URL's token fixes (see transform/). */
  signedTransform(token: string): Record<string, unknown> | undefined {
    return this.signer.transformOf(token);
  }

  /** POST /object/sign/{bucket} {paths, expiresIn}: one entry per path, with an error for unreadable ones. */
  async signMany(caller: Caller, bucket: string, paths: unknown, expiresIn: unknown) {
    const seconds = expiresInOf(expiresIn);
    const names = checkObjectNames(paths, 'paths', MAX_LIST);
    const found = await asCaller(
      this.sql,
      caller,
      (tx) =>
        tx<{ name: string }[]>`select name from storage.objects where bucket_id = ${bucket} and name = any(${names})`,
    );
    const visible = new Set(found.map((r) => r.name));
    return names.map((name) =>
      visible.has(name)
        ? { error: null, path: name, signedURL: this.signedPath({ bucket, name }, seconds) }
        : { error: 'Either the object does not exist or you do not have access to it', path: name, signedURL: null },
    );
  }

  // Unencoded on purpose: storage-js applies encodeURI to the whole URL. A token with a transformation is
  // served by /render/image/sign, as in Supabase.
  private signedPath(ref: ObjectRef, seconds: number, transform?: Record<string, unknown>): string {
    const token = this.signer.sign(`${ref.bucket}/${ref.name}`, seconds, transform);
    return `/${transform ? 'render/image' : 'object'}/sign/${ref.bucket}/${ref.name}?token=${token}`;
  }
}
