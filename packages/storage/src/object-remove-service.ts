// Removals: DELETE of one object or of a list of names. The rows go in the caller's transaction (RLS decides);
// their bytes are removed after the commit, so a rollback never loses bytes a committed row points at.
import type postgres from 'postgres';
import { asCaller, type Caller } from './caller-transaction.js';
import { checkObjectName, checkObjectNames, type ObjectRef } from './object-path.js';
import { OBJECT_COLUMNS, type ObjectRow } from './object-row.js';
import { objectKey, removeQuietly, type StorageBackend, type StorageLog } from './storage-backend.js';
import { errors } from './storage-errors.js';

const MAX_REMOVE = 1000;

export class ObjectRemoveService {
  constructor(private readonly o: { sql: postgres.Sql; backend: StorageBackend; log: StorageLog }) {}

  /** DELETE /object/{bucket}/{name}: 404 when the caller cannot see it, 403 when they see it but may not delete. */
  async removeOne(caller: Caller, ref: ObjectRef): Promise<{ message: string }> {
    checkObjectName(ref.name);
    const versions = await asCaller(this.o.sql, caller, async (tx) => {
      const rows = await tx<{ version: string }[]>`
        delete from storage.objects where bucket_id = ${ref.bucket} and name = ${ref.name} returning version`;
      if (rows.length === 0) {
        const [seen] = await tx`select 1 from storage.objects where bucket_id = ${ref.bucket} and name = ${ref.name}`;
        throw seen ? errors.unauthorized('You may not delete this object') : errors.objectNotFound();
      }
      return rows.map((r) => r.version);
    });
    await removeQuietly(
      this.o.backend,
      versions.map((v) => objectKey(ref.bucket, v)),
      this.o.log,
    );
    return { message: 'Successfully deleted' };
  }

  /** DELETE /object/{bucket} {prefixes}: deletes what RLS lets the caller delete and lists it (as Supabase). */
  async removeMany(caller: Caller, bucket: string, prefixes: unknown): Promise<Omit<ObjectRow, 'version'>[]> {
    const names = checkObjectNames(prefixes, 'prefixes', MAX_REMOVE);
    const rows = await asCaller(
      this.o.sql,
      caller,
      (tx) => tx<ObjectRow[]>`
      delete from storage.objects where bucket_id = ${bucket} and name = any(${names})
        returning ${tx.unsafe(OBJECT_COLUMNS)}`,
    );
    await removeQuietly(
      this.o.backend,
      rows.map((r) => objectKey(bucket, r.version)),
      this.o.log,
    );
    return rows.map(({ version: _v, ...rest }) => rest);
  }
}
