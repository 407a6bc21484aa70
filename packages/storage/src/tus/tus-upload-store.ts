// The rows of storage.tus_uploads: an upload's state, read and advanced as service_role. Every change of the
// offset is a compare-and-set on the offset the request started from, so two requests (or two instances)
// racing on one upload cannot both append: the loser gets 409 and its part is removed.
import type postgres from 'postgres';
import { asCaller, SERVICE } from '../caller-transaction.js';

export interface TusUploadRow {
  id: string;
  bucket_id: string;
  name: string;
  owner_key: string;
  upload_length: number;
  upload_offset: number;
  parts: string[];
  upsert: boolean;
  content_type: string | null;
  cache_control: string;
  user_metadata: Record<string, unknown> | null;
  expires_at: Date;
}

export type NewTusUpload = Omit<TusUploadRow, 'upload_offset' | 'parts' | 'expires_at'>;

const COLUMNS = `id, bucket_id, name, owner_key, upload_length::float8 as upload_length,
  upload_offset::float8 as upload_offset, parts::text[] as parts, upsert, content_type, cache_control,
  user_metadata, expires_at`;

export class TusUploadStore {
  constructor(
    private readonly sql: postgres.Sql,
    /** How long an upload lives after its last chunk. */
    private readonly expirySeconds: number,
  ) {}

  private run<T>(work: (tx: postgres.TransactionSql) => Promise<T>): Promise<T> {
    return asCaller(this.sql, SERVICE, work);
  }

  insert(upload: NewTusUpload): Promise<TusUploadRow> {
    return this.run(async (tx) => {
      const meta = upload.user_metadata === null ? null : tx.json(upload.user_metadata as postgres.JSONValue);
      const [row] = await tx<TusUploadRow[]>`
        insert into storage.tus_uploads (id, bucket_id, name, owner_key, upload_length, upsert, content_type,
          cache_control, user_metadata, expires_at)
        values (${upload.id}, ${upload.bucket_id}, ${upload.name}, ${upload.owner_key}, ${upload.upload_length},
          ${upload.upsert}, ${upload.content_type}, ${upload.cache_control}, ${meta},
          now() + make_interval(secs => ${this.expirySeconds}))
        returning ${tx.unsafe(COLUMNS)}`;
      return row!;
    });
  }

  /** The live upload of that id and owner; expired ones are as gone as terminated ones. */
  find(id: string, ownerKey: string): Promise<TusUploadRow | undefined> {
    return this.run(async (tx) => {
      const [row] = await tx<TusUploadRow[]>`
        select ${tx.unsafe(COLUMNS)} from storage.tus_uploads
        where id = ${id} and owner_key = ${ownerKey} and expires_at > now()`;
      return row;
    });
  }

  /** Appends a stored part if the offset is still `from`; undefined when it moved on or the upload is gone. */
  append(id: string, from: number, size: number, part: string): Promise<TusUploadRow | undefined> {
    return this.run(async (tx) => {
      const [row] = await tx<TusUploadRow[]>`
        update storage.tus_uploads
        set upload_offset = upload_offset + ${size}, parts = array_append(parts, ${part}::uuid),
          expires_at = now() + make_interval(secs => ${this.expirySeconds})
        where id = ${id} and upload_offset = ${from} and upload_offset + ${size} <= upload_length
          and expires_at > now()
        returning ${tx.unsafe(COLUMNS)}`;
      return row;
    });
  }

  /** Removes an upload (termination, a refused completion); its parts are the caller's to remove. */
  remove(id: string, ownerKey: string): Promise<TusUploadRow | undefined> {
    return this.run(async (tx) => {
      const [row] = await tx<TusUploadRow[]>`
        delete from storage.tus_uploads where id = ${id} and owner_key = ${ownerKey}
        returning ${tx.unsafe(COLUMNS)}`;
      return row;
    });
  }

  /** Removes up to `limit` expired uploads; SKIP LOCKED lets several instances sweep at once. */
  removeExpired(limit: number): Promise<Pick<TusUploadRow, 'id' | 'bucket_id' | 'parts'>[]> {
    return this.run(
      (tx) => tx<Pick<TusUploadRow, 'id' | 'bucket_id' | 'parts'>[]>`
        delete from storage.tus_uploads where id in (
          select id from storage.tus_uploads where expires_at <= now()
          order by expires_at limit ${limit} for update skip locked)
        returning id, bucket_id, parts::text[] as parts`,
    );
  }
}
