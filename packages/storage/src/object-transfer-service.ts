// Moves and copies: POST /object/move and /object/copy, within a bucket or across buckets. The destination
// bucket's size limit and type list apply, so a transfer cannot carry into a bucket what an upload could not.
// New bytes (a copy, a move across buckets) count against the disk's free-space floor as an upload does.
import { randomUUID } from 'node:crypto';
import type postgres from 'postgres';
import { asCaller, type Caller } from './caller-transaction.js';
import { normaliseMimeType, typeAllowed } from './content-sniffer.js';
import type { DiskSpaceGuard } from './disk-space-guard.js';
import { checkObjectName } from './object-path.js';
import type { BucketRow, ObjectReadService } from './object-read-service.js';
import { OBJECT_COLUMNS, type ObjectMetadata, type ObjectRow } from './object-row.js';
import type { VersionCommitter } from './object-version-commit.js';
import { objectKey, removeQuietly, type StorageBackend, type StorageLog } from './storage-backend.js';
import { errors } from './storage-errors.js';
import { sizeLimitOf } from './upload-size-limit.js';

/** A move or copy: from one bucket and name to another (the same bucket unless destinationBucket is given). */
interface Transfer {
  fromBucket: string;
  from: string;
  toBucket: string;
  to: string;
}

interface TransferServiceOptions {
  sql: postgres.Sql;
  backend: StorageBackend;
  reads: ObjectReadService;
  versions: VersionCommitter;
  space: DiskSpaceGuard;
  fileSizeLimit: number;
  log: StorageLog;
}

export class ObjectTransferService {
  constructor(private readonly o: TransferServiceOptions) {}

  /**
   * POST /object/move. Within a bucket only the row is renamed (the key holds no name). Across buckets the
   * key changes, so the bytes are copied to a new version under the destination before the commit and the
   * old ones removed after it. RLS checks both sides: the update policy's USING on the source row, its WITH
   * CHECK on the destination.
   */
  async move(caller: Caller, t: Transfer): Promise<{ message: string }> {
    checkObjectName(t.from);
    checkObjectName(t.to);
    if (t.toBucket === t.fromBucket) {
      await asCaller(this.o.sql, caller, async (tx) => {
        const [moved] = await tx`
          update storage.objects set name = ${t.to}, updated_at = now()
          where bucket_id = ${t.fromBucket} and name = ${t.from} returning id`;
        if (!moved) await this.refuse(tx, t.fromBucket, t.from, 'move');
      });
      return { message: 'Successfully moved' };
    }
    const limits = await this.o.reads.uploadLimits(t.toBucket);
    const version = randomUUID();
    const key = objectKey(t.toBucket, version);
    let oldKey: string;
    try {
      oldKey = await this.o.space.watch(() =>
        asCaller(this.o.sql, caller, async (tx) => {
          // Rows the caller may read but not update are not locked: refuse() tells 403 from 404.
          const source = (await this.readSource(tx, t, true)) ?? (await this.refuse(tx, t.fromBucket, t.from, 'move'));
          this.checkLimits(source.metadata, limits);
          this.o.space.admit(source.metadata.size);
          const [moved] = await tx`
            update storage.objects set bucket_id = ${t.toBucket}, name = ${t.to}, version = ${version}, updated_at = now()
            where id = ${source.id} returning id`;
          if (!moved) await this.refuse(tx, t.fromBucket, t.from, 'move');
          const from = objectKey(t.fromBucket, source.version);
          await this.o.backend.copy(from, key);
          return from;
        }),
      );
    } catch (error) {
      await removeQuietly(this.o.backend, [key], this.o.log);
      throw error;
    }
    await removeQuietly(this.o.backend, [oldKey], this.o.log);
    return { message: 'Successfully moved' };
  }

  /**
   * POST /object/copy: a row with a new version, its bytes copied before the commit. With `x-upsert: true` an
   * existing destination is replaced (its old bytes removed after the commit).
   */
  async copy(caller: Caller, t: Transfer, upsert: boolean): Promise<{ Key: string; Id: string }> {
    checkObjectName(t.from);
    checkObjectName(t.to);
    const limits = await this.o.reads.uploadLimits(t.toBucket);
    const mode = upsert ? 'upsert' : 'create';
    const target = { bucket: t.toBucket, name: t.to };
    return this.o.space.watch(() =>
      this.o.versions.commitVersion(caller, target, mode, async (tx, key, version) => {
        const source = await this.readSource(tx, t);
        if (!source) throw errors.objectNotFound();
        this.checkLimits(source.metadata, limits);
        this.o.space.admit(source.metadata.size);
        const metadata = { ...source.metadata, lastModified: new Date().toISOString() };
        const written = await this.o.versions.writeRow(
          tx,
          caller,
          target,
          version,
          metadata,
          source.user_metadata,
          mode,
        );
        await this.o.backend.copy(objectKey(t.fromBucket, source.version), key);
        return written;
      }),
    );
  }

  /** The source of a move or copy as the caller sees it (RLS read), or undefined when hidden or missing. */
  private async readSource(tx: postgres.ReservedSql, t: Transfer, lock = false): Promise<ObjectRow | undefined> {
    // A copy needs only read access to the source; a move locks it (and so needs the update policy).
    const [source] = await tx<ObjectRow[]>`
      select ${tx.unsafe(OBJECT_COLUMNS)} from storage.objects where bucket_id = ${t.fromBucket} and name = ${t.from}
      ${lock ? tx`for update` : tx``}`;
    return source;
  }

  private checkLimits(metadata: ObjectMetadata, bucket: BucketRow): void {
    if (metadata.size > sizeLimitOf(bucket, this.o.fileSizeLimit)) throw errors.tooLarge();
    const type = normaliseMimeType(metadata.mimetype) ?? metadata.mimetype;
    if (bucket.allowed_mime_types && !typeAllowed(type, bucket.allowed_mime_types)) {
      throw errors.invalidMimeType(`mime type ${metadata.mimetype} is not supported`);
    }
  }

  /** Nothing changed: 403 when the caller can see the object (RLS refused the write), else 404. */
  private async refuse(tx: postgres.ReservedSql, bucket: string, name: string, verb: string): Promise<never> {
    const [seen] = await tx`select 1 from storage.objects where bucket_id = ${bucket} and name = ${name}`;
    throw seen ? errors.unauthorized(`You may not ${verb} this object`) : errors.objectNotFound();
  }
}
