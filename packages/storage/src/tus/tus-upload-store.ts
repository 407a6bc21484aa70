// The rows of storage.tus_uploads: an upload's state, read and advanced as service_role. Every change of the
// offset is a compare-and-set on the offset the request started from, so two requests (or two instances)
// racing on one upload cannot both append: the loser gets 409 and its part is removed. A staged upload is
// first claimed by the request that writes its next chunk (a lease, renewed while the body flows): only that
// request may record the chunk or complete the upload, and others get 423 meanwhile.
import type postgres from 'postgres';
import { SERVICE, writeAsCaller } from '../caller-transaction.js';

export interface TusUploadRow {
  id: string;
  bucket_id: string;
  name: string;
  owner_key: string;
  upload_length: number;
  upload_offset: number;
  parts: string[];
  upsert: boolean;
  /** Written in place into one staging file (filesystem backend); otherwise one backend part per chunk. */
  staged: boolean;
  /** The MD5s of a staged upload's chunks, in order (its ETag is composed from them). */
  chunk_md5s: string[];
  content_type: string | null;
  cache_control: string;
  user_metadata: Record<string, unknown> | null;
  expires_at: Date;
}

type NewTusUpload = Omit<TusUploadRow, 'upload_offset' | 'parts' | 'chunk_md5s' | 'expires_at'>;

const COLUMNS = `id, bucket_id, name, owner_key, upload_length::float8 as upload_length,
  upload_offset::float8 as upload_offset, parts::text[] as parts, upsert, staged, chunk_md5s, content_type, cache_control,
  user_metadata, expires_at`;

export class TusUploadStore {
  constructor(
    private readonly sql: postgres.Sql,
    /** How long an upload lives after its last chunk. */
    private readonly expirySeconds: number,
  ) {}

  // Each operation is one statement, sent with its transaction in one round trip (a chunk costs two of them).
  private run<T extends readonly postgres.Row[]>(statement: (sql: postgres.ReservedSql) => postgres.PendingQuery<T>) {
    return writeAsCaller(this.sql, SERVICE, statement);
  }

  private async first<T extends postgres.Row>(statement: (sql: postgres.ReservedSql) => postgres.PendingQuery<T[]>) {
    const [row] = await this.run(statement);
    return row as T | undefined;
  }

  async insert(upload: NewTusUpload): Promise<TusUploadRow> {
    const row = await this.first((tx) => {
      const meta = upload.user_metadata === null ? null : tx.json(upload.user_metadata as postgres.JSONValue);
      return tx<TusUploadRow[]>`
        insert into storage.tus_uploads (id, bucket_id, name, owner_key, upload_length, upsert, staged,
          content_type, cache_control, user_metadata, expires_at)
        values (${upload.id}, ${upload.bucket_id}, ${upload.name}, ${upload.owner_key}, ${upload.upload_length},
          ${upload.upsert}, ${upload.staged}, ${upload.content_type}, ${upload.cache_control}, ${meta},
          now() + make_interval(secs => ${this.expirySeconds}))
        returning ${tx.unsafe(COLUMNS)}`;
    });
    return row!;
  }

  /** The live upload of that id and owner; expired ones are as gone as terminated ones. */
  find(id: string, ownerKey: string): Promise<TusUploadRow | undefined> {
    return this.first(
      (tx) => tx<TusUploadRow[]>`
      select ${tx.unsafe(COLUMNS)} from storage.tus_uploads
      where id = ${id} and owner_key = ${ownerKey} and expires_at > now()`,
    );
  }

  /** Appends a stored part if the offset is still `from`; undefined when it moved on or the upload is gone. */
  append(id: string, from: number, size: number, part: string): Promise<TusUploadRow | undefined> {
    return this.first(
      (tx) => tx<TusUploadRow[]>`
      update storage.tus_uploads
      set upload_offset = upload_offset + ${size}, parts = array_append(parts, ${part}::uuid),
        expires_at = now() + make_interval(secs => ${this.expirySeconds})
      where id = ${id} and upload_offset = ${from} and upload_offset + ${size} <= upload_length
        and expires_at > now()
      returning ${tx.unsafe(COLUMNS)}`,
    );
  }

  /**
   * Claims a staged upload at offset `from` for `writer` for `leaseSeconds`: undefined when it stands elsewhere,
   * is gone, or another writer's lease is still running (the caller tells these apart with find).
   */
  claim(id: string, ownerKey: string, from: number, writer: string, leaseSeconds: number) {
    return this.first(
      (tx) => tx<TusUploadRow[]>`
      update storage.tus_uploads
      set writer = ${writer}, writer_until = now() + make_interval(secs => ${leaseSeconds}),
        expires_at = now() + make_interval(secs => ${this.expirySeconds})
      where id = ${id} and owner_key = ${ownerKey} and staged and upload_offset = ${from} and expires_at > now()
        and (writer is null or writer_until <= now())
      returning ${tx.unsafe(COLUMNS)}`,
    );
  }

  /** Extends a running lease; false when it ran out or was released. */
  async renew(id: string, writer: string, leaseSeconds: number): Promise<boolean> {
    const rows = await this.run(
      (tx) => tx`
        update storage.tus_uploads set writer_until = now() + make_interval(secs => ${leaseSeconds})
        where id = ${id} and writer = ${writer} and writer_until > now() returning 1`,
    );
    return rows.length > 0;
  }

  /** Records a written chunk of a staged upload and releases the claim, if `writer` still holds it. */
  recordChunk(id: string, writer: string, from: number, size: number, md5: string) {
    return this.first(
      (tx) => tx<TusUploadRow[]>`
      update storage.tus_uploads
      set upload_offset = upload_offset + ${size}, chunk_md5s = array_append(chunk_md5s, ${md5}),
        writer = null, writer_until = null, expires_at = now() + make_interval(secs => ${this.expirySeconds})
      where id = ${id} and writer = ${writer} and writer_until > now() and upload_offset = ${from}
        and upload_offset + ${size} <= upload_length
      returning ${tx.unsafe(COLUMNS)}`,
    );
  }

  /** Lets go of a claim (a chunk that wrote nothing, or failed). */
  async release(id: string, writer: string): Promise<void> {
    await this.run(
      (tx) => tx`update storage.tus_uploads set writer = null, writer_until = null
      where id = ${id} and writer = ${writer}`,
    );
  }

  /** Which of these ids are uploads still recorded (the staging sweep keeps their files). */
  async existing(ids: string[]): Promise<Set<string>> {
    const rows = await this.run(
      (tx) => tx<{ id: string }[]>`select id from storage.tus_uploads where id = any(${ids}::uuid[])`,
    );
    return new Set(rows.map((r) => r.id));
  }

  /** Removes an upload (termination, a refused completion); its parts are the caller's to remove. */
  remove(id: string, ownerKey: string): Promise<TusUploadRow | undefined> {
    return this.first(
      (tx) => tx<TusUploadRow[]>`
      delete from storage.tus_uploads where id = ${id} and owner_key = ${ownerKey}
      returning ${tx.unsafe(COLUMNS)}`,
    );
  }

  /** Removes up to `limit` expired uploads; SKIP LOCKED lets several instances sweep at once. */
  removeExpired(limit: number): Promise<Pick<TusUploadRow, 'id' | 'bucket_id' | 'parts' | 'staged'>[]> {
    return this.run(
      (tx) => tx<Pick<TusUploadRow, 'id' | 'bucket_id' | 'parts' | 'staged'>[]>`
        delete from storage.tus_uploads where id in (
          select id from storage.tus_uploads where expires_at <= now()
          order by expires_at limit ${limit} for update skip locked)
        returning id, bucket_id, parts::text[] as parts, staged`,
    );
  }
}
