// Buckets: read (every role), and create, update, empty and delete (service role, or super admins through the
// bucket policies; anyone else 403). Writes drop the upload-limits cache entry on this instance at once, so
// a changed limit or type list applies to the next upload here (other instances within BUCKET_CACHE_MS).
import type postgres from 'postgres';
import { asCaller, callerUserId, type Caller } from './caller-transaction.js';
import { newBucketId, parseBucketOptions } from './bucket-options.js';
import { checkBucketId, escapeLike } from './object-path.js';
import { BUCKET_COLUMNS, type BucketRow, type ObjectReadService } from './object-read-service.js';
import { objectKey, removeQuietly, type StorageBackend, type StorageLog } from './storage-backend.js';
import { errors, StorageError } from './storage-errors.js';

export interface BucketListOptions {
  limit?: string;
  offset?: string;
  search?: string;
  sortColumn?: string;
  sortOrder?: string;
}

const SORT_COLUMNS = new Set(['id', 'name', 'created_at', 'updated_at']);
const EMPTY_BATCH = 1000;

const notEmpty = () => new StorageError(409, 'InvalidRequest', 'The bucket you tried to delete is not empty');

function optionalInt(value: string | undefined, what: string, min: number): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min)
    throw errors.invalidRequest(`${what} must be a whole number of at least ${min}`);
  return Number(value);
}

export class BucketService {
  constructor(
    private readonly sql: postgres.Sql,
    private readonly backend: StorageBackend,
    private readonly reads: ObjectReadService,
    private readonly log: StorageLog,
  ) {}

  /** GET /bucket with storage-js's listBuckets options (limit, offset, search, sortColumn, sortOrder). */
  async list(caller: Caller, options: BucketListOptions = {}): Promise<BucketRow[]> {
    const limit = optionalInt(options.limit, 'limit', 1);
    const offset = optionalInt(options.offset, 'offset', 0) ?? 0;
    const column = options.sortColumn && SORT_COLUMNS.has(options.sortColumn) ? options.sortColumn : 'id';
    const order = options.sortOrder?.toLowerCase() === 'desc' ? 'desc' : 'asc';
    const search = options.search ? `%${escapeLike(options.search)}%` : '%';
    // The sort column and order come from the whitelists above; values are parameters.
    const rows = await asCaller(
      this.sql,
      caller,
      (tx) => tx<BucketRow[]>`
      select ${tx.unsafe(BUCKET_COLUMNS)} from storage.buckets where name ilike ${search}
      order by ${tx.unsafe(`${column} ${order}`)}, id limit ${limit ?? null} offset ${offset}`,
    );
    return rows.map((row) => ({
      ...row,
      file_size_limit: row.file_size_limit === null ? null : Number(row.file_size_limit),
    }));
  }

  /** POST /bucket: `{name}` as Supabase answers. */
  async create(caller: Caller, body: Record<string, unknown>): Promise<{ name: string }> {
    const id = newBucketId(body);
    const options = parseBucketOptions(body);
    await asCaller(
      this.sql,
      caller,
      (tx) => tx`
      insert into storage.buckets (id, name, owner_id, public, file_size_limit, allowed_mime_types, content_check)
      values (${id}, ${id}, ${callerUserId(caller)}, ${options.public ?? false}, ${options.file_size_limit ?? null},
              ${options.allowed_mime_types ?? null}, ${options.content_check ?? 'declared'})`,
    );
    this.reads.forgetBucket(id);
    return { name: id };
  }

  /** PUT /bucket/{id}: only the options given change. */
  async update(caller: Caller, id: string, body: Record<string, unknown>): Promise<{ message: string }> {
    checkBucketId(id);
    const o = parseBucketOptions(body);
    await asCaller(this.sql, caller, async (tx) => {
      const [row] = await tx`
        update storage.buckets set
          public = coalesce(${o.public ?? null}::boolean, public),
          file_size_limit = case when ${o.file_size_limit !== undefined} then ${o.file_size_limit ?? null}::bigint
            else file_size_limit end,
          allowed_mime_types = case when ${o.allowed_mime_types !== undefined}
            then ${o.allowed_mime_types ?? null}::text[] else allowed_mime_types end,
          content_check = coalesce(${o.content_check ?? null}, content_check),
          updated_at = now()
        where id = ${id} returning id`;
      if (!row) await this.refuse(tx, id);
    });
    this.reads.forgetBucket(id);
    return { message: 'Successfully updated' };
  }

  /**
   * POST /bucket/{id}/empty: deletes every object, in batches of EMPTY_BATCH rows per transaction so a large
   * bucket never holds one long transaction; each batch's bytes are removed after its commit. The first batch
   * runs before the answer (a small bucket is empty when it comes); the rest continue in the background, and the
   * answer is Supabase's, which queues the whole deletion.
   */
  async empty(caller: Caller, id: string): Promise<{ message: string }> {
    checkBucketId(id);
    if (await this.emptyBatch(caller, id)) {
      void this.emptyRest(caller, id);
    }
    return { message: 'Empty bucket has been queued. Completion may take up to an hour.' };
  }

  private async emptyRest(caller: Caller, id: string): Promise<void> {
    try {
      while (await this.emptyBatch(caller, id));
    } catch (error) {
      this.log('emptying a bucket stopped', { bucket: id, error: (error as Error).message });
    }
  }

  /** Deletes one batch of the bucket's objects and their bytes; true when more may remain. */
  private async emptyBatch(caller: Caller, id: string): Promise<boolean> {
    const versions = await asCaller(this.sql, caller, async (tx) => {
      await this.mayManage(tx, id);
      const rows = await tx<{ version: string }[]>`
        delete from storage.objects where id in (
          select id from storage.objects where bucket_id = ${id} limit ${EMPTY_BATCH} for update skip locked)
        returning version`;
      return rows.map((r) => r.version);
    });
    await removeQuietly(
      this.backend,
      versions.map((v) => objectKey(id, v)),
      this.log,
    );
    return versions.length === EMPTY_BATCH;
  }

  /** DELETE /bucket/{id}: 409 while it holds objects (storage-js: emptyBucket first). */
  async remove(caller: Caller, id: string): Promise<{ message: string }> {
    checkBucketId(id);
    await asCaller(this.sql, caller, async (tx) => {
      const [row] = await tx`delete from storage.buckets where id = ${id} returning id`;
      if (!row) await this.refuse(tx, id);
    }).catch((error: { code?: string }) => {
      // storage.objects references the bucket: a remaining object (even one hidden from the caller) blocks it.
      throw error.code === '23503' ? notEmpty() : error;
    });
    this.reads.forgetBucket(id);
    return { message: 'Successfully deleted' };
  }

  /** Bucket rows are readable by everyone, so a change that touched nothing is either 404 or refused. */
  private async refuse(tx: postgres.ReservedSql, id: string): Promise<never> {
    const [seen] = await tx`select 1 from storage.buckets where id = ${id}`;
    throw seen ? errors.unauthorized('You may not manage buckets') : errors.bucketNotFound();
  }

  /** RLS decides who manages a bucket: an update that changes nothing still needs the update policy. */
  private async mayManage(tx: postgres.ReservedSql, id: string): Promise<void> {
    const [row] = await tx`update storage.buckets set id = id where id = ${id} returning id`;
    if (!row) await this.refuse(tx, id);
  }
}
