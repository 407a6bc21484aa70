// A new version of an object, committed with its bytes: the row is written under the caller's role (RLS decides)
// with a fresh version while the bytes are placed under `<bucket>/<version>`, in one transaction. A row is never
// committed without its bytes; a failure removes the new bytes, and the bytes a replaced version pointed at are
// removed only after the commit (object-write-service.ts has the whole protocol).
import { randomUUID } from 'node:crypto';
import type postgres from 'postgres';
import { asCaller, callerUserId, type Caller } from './caller-transaction.js';
import type { ObjectMetadata } from './object-row.js';
import type { ObjectRef } from './object-path.js';
import { objectKey, removeQuietly, type StorageBackend, type StorageLog } from './storage-backend.js';
import { errors } from './storage-errors.js';

export type UploadMode = 'create' | 'upsert' | 'update';

/** The row an upload or copy wrote, and the version it replaced (upsert). */
interface WrittenRow {
  id: string;
  old_version: string | null;
}

class RolledBack {}

export class VersionCommitter {
  constructor(private readonly o: { sql: postgres.Sql; backend: StorageBackend; log: StorageLog }) {}

  /** Writes the row of an upload under RLS; metadata null is a trial write (signed upload URLs, rolled back). */
  async writeRow(
    tx: postgres.ReservedSql,
    caller: Caller,
    ref: ObjectRef,
    version: string,
    metadata: ObjectMetadata | null,
    userMetadata: Record<string, unknown> | null,
    mode: UploadMode,
  ): Promise<WrittenRow> {
    const owner = callerUserId(caller);
    // postgres.js serialises jsonb parameters itself: pass objects, not JSON text (which would become a string).
    const meta = tx.json((metadata ?? {}) as unknown as postgres.JSONValue);
    const user = userMetadata === null ? null : tx.json(userMetadata as postgres.JSONValue);
    if (mode !== 'create') {
      // The FROM subquery locks the current row and yields its old version in the same statement.
      const [updated] = await tx<{ id: string; old_version: string }[]>`
        update storage.objects o
        set version = ${version}, metadata = ${meta}, user_metadata = ${user}, owner_id = ${owner},
            updated_at = now(), last_accessed_at = now()
        from (select id, version from storage.objects where bucket_id = ${ref.bucket}
          and name = ${ref.name} for update) old
        where o.id = old.id
        returning o.id, old.version as old_version`;
      if (updated) return updated;
      if (mode === 'update') throw errors.objectNotFound();
    }
    const [inserted] = await tx<{ id: string; old_version: null }[]>`
      insert into storage.objects (bucket_id, name, owner_id, version, metadata, user_metadata)
      values (${ref.bucket}, ${ref.name}, ${owner}, ${version}, ${meta}, ${user})
      returning id, null::text as old_version`;
    return inserted!;
  }

  /**
   * Whether the caller may write this object now (RLS 403, duplicate 409, unknown bucket 404), by a trial row
   * write in a transaction that is always rolled back.
   */
  async checkWritable(caller: Caller, ref: ObjectRef, mode: UploadMode): Promise<void> {
    try {
      await asCaller(this.o.sql, caller, async (tx) => {
        await this.writeRow(tx, caller, ref, randomUUID(), null, null, mode);
        throw new RolledBack();
      });
    } catch (error) {
      if (!(error instanceof RolledBack)) throw error;
    }
  }

  /**
   * A new version of an object: `place` writes its row and puts its bytes under `key` in the caller's transaction
   * (retried once on an insert race). On failure the new bytes are removed; after the commit, the bytes of the
   * version it replaced.
   */
  async commitVersion(
    caller: Caller,
    target: ObjectRef,
    mode: UploadMode,
    place: (tx: postgres.ReservedSql, key: string, version: string) => Promise<WrittenRow>,
  ): Promise<{ Key: string; Id: string }> {
    const version = randomUUID();
    const key = objectKey(target.bucket, version);
    let row: WrittenRow;
    try {
      row = await this.retryOnRace(mode, () => asCaller(this.o.sql, caller, (tx) => place(tx, key, version)));
    } catch (error) {
      await removeQuietly(this.o.backend, [key], this.o.log);
      throw error;
    }
    if (row.old_version) await removeQuietly(this.o.backend, [objectKey(target.bucket, row.old_version)], this.o.log);
    return { Key: `${target.bucket}/${target.name}`, Id: row.id };
  }

  /** An upsert that lost an insert race to a concurrent upload of the same name tries once more as an update. */
  private async retryOnRace<T>(mode: UploadMode, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (mode === 'upsert' && (error as { code?: string }).code === '23505') return run();
      throw error;
    }
  }
}
