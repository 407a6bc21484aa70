// Import of an archive, as a new auction (ids kept; refused with the list of conflicts when any exist here) or, for
// a restore, in place of the auction's current rows. Rows move in ONE transaction on a connection of their own;
// object bytes are placed first and removed again when that transaction fails. The connection is marked with a
// replication origin, so realtime (change-capture.ts) does not stream the bulk rows to subscribers.
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import postgres from 'postgres';
import type { StorageBackend } from '@auction-ops/storage';
import {
  checkReferences,
  deleteCurrent,
  findConflicts,
  insertStaged,
  matchCategories,
  matchUsers,
  rebuildRollups,
  triggersOff,
  type UserMatch,
} from './auction-apply.js';
import { errors } from './auction-data-errors.js';
import type { ArchiveHeader } from './auction-export.js';
import { type CheckedArchive, checkArchive } from './archive-check.js';
import { type Staged, stageArchive } from './archive-staging.js';
import { lossReport, type LossReport } from './loss-report.js';

/** Transactions committed under an origin with this prefix are not streamed by realtime. */
export const BULK_ORIGIN_PREFIX = 'auction_ops_bulk';

export interface ImportOptions {
  /** Owner URL of the database. */
  url: string;
  backend: Pick<StorageBackend, 'put' | 'remove'>;
  spoolDir: string;
  /** The archive: a file, read twice (checked whole before any SQL, then staged). */
  file: string;
  passphrase?: string;
  /** The most bytes the archive may decompress to (archive-check.ts DEFAULT_MAX_BYTES). */
  maxBytes?: number;
  progress?: (message: string) => void;
}

export interface ImportResult {
  auction: ArchiveHeader['auction'];
  tables: Record<string, number>;
  objects: number;
  users: UserMatch;
  /** False when the database refused a replication origin: realtime subscribers saw the rows. */
  quietRealtime: boolean;
}

/** Runs `work` in one transaction on a connection of its own, its commit marked with a bulk origin if possible. */
async function inBulkTransaction<T>(
  url: string,
  backend: Pick<StorageBackend, 'remove'>,
  log: (m: string) => void,
  work: (tx: postgres.TransactionSql, written: string[], quiet: boolean) => Promise<T>,
): Promise<T> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  const origin = `${BULK_ORIGIN_PREFIX}_${randomBytes(6).toString('hex')}`;
  const written: string[] = [];
  let quiet = false;
  try {
    try {
      await sql`select pg_replication_origin_create(${origin})`;
      await sql`select pg_replication_origin_session_setup(${origin})`;
      quiet = true;
    } catch {
      log('note: no replication origin (not a superuser): realtime subscribers will see these rows');
    }
    return (await sql.begin((tx) => work(tx, written, quiet))) as T;
  } catch (error) {
    if (written.length) await backend.remove(written).catch(() => {});
    // The database refusing the archive's rows (a type, a constraint) is a refusal like the others.
    if (error instanceof postgres.PostgresError) throw errors.rowsRefused(error.message);
    throw error;
  } finally {
    if (quiet) {
      await sql`select pg_replication_origin_session_reset()`.catch(() => {});
      await sql`select pg_replication_origin_drop(${origin})`.catch(() => {});
    }
    await sql.end({ timeout: 5 });
  }
}

const counts = (staged: Staged) => Object.fromEntries([...staged.tables].map(([name, t]) => [name, t.rows]));

/**
 * Links the imported rows' URLs to the objects the archive carried (and to objects under the auction's own folder),
 * as the link trigger would have on a write (domain/0032): triggers are off during an import. A URL naming any
 * other object links nothing, so it grants the auction nothing (no purge, no export of it).
 */
async function linkImportedObjects(tx: postgres.TransactionSql, auctionId: string, staged: Staged): Promise<void> {
  await tx`select domain.link_imported_objects(${auctionId}::uuid, ${staged.objects.map((o) => o.bucket_id)}::text[],
    ${staged.objects.map((o) => o.name)}::text[])`;
}

const hasVersion = (tx: postgres.TransactionSql) => async (bucket: string, version: string) =>
  (await tx`select 1 from storage.objects where bucket_id = ${bucket} and version = ${version}`).length > 0;

/** The first pass, before any connection is opened. */
async function checked(options: ImportOptions, log: (m: string) => void): Promise<CheckedArchive> {
  const archive = await checkArchive(createReadStream(options.file), options);
  log(`checked: ${archive.tables.length} tables and ${archive.objects.length} objects match the manifest`);
  return archive;
}

export async function importAuction(options: ImportOptions): Promise<ImportResult> {
  const log = options.progress ?? (() => {});
  const archive = await checked(options, log);
  return inBulkTransaction(options.url, options.backend, log, async (tx, written, quiet) => {
    const staged = await stageArchive(tx, archive, { ...options, hasVersion: hasVersion(tx), progress: log }, written);
    const conflicts = await findConflicts(tx, staged);
    if (conflicts.length) throw errors.conflicts(conflicts);
    const users = await matchUsers(tx, staged, { create: true });
    await triggersOff(tx, 'an import');
    // With foreign keys off: a category that becomes the auction's own comes before the auction's row does.
    await matchCategories(tx, staged);
    await insertStaged(tx, staged, { keepLogs: false, log });
    await linkImportedObjects(tx, staged.header.auction.id, staged);
    await checkReferences(tx, staged.header.auction.id, { usersGone: false });
    if (!staged.header.secrets) {
      // An endpoint without its signing secret cannot sign: it waits, inactive, for an admin to set a new one.
      const off = await tx`
        update public.webhook_endpoints set is_active = false, disabled_at = now(),
          disabled_reason = 'imported without its signing secret: set a new secret, then activate it'
        where auction_id = ${staged.header.auction.id} and is_active`;
      if (off.count) log(`${off.count} webhook endpoints imported inactive: the archive has no signing secrets`);
    }
    await rebuildRollups(tx, staged.header.auction.id);
    log('analytics rollups rebuilt; committing');
    return {
      auction: staged.header.auction,
      tables: counts(staged),
      objects: staged.objects.length,
      users,
      quietRealtime: quiet,
    };
  });
}

interface ReplaceOptions extends ImportOptions {
  /** The auction being replaced (its id must be the archive's). */
  auctionId: string;
  /** Shown what will be lost; answers whether to go on. */
  confirm: (report: LossReport) => Promise<boolean>;
  /** The auction.restored event's data. */
  event: Record<string, unknown>;
}

/**
 * Replaces the auction's rows with the archive's (a restore): today's rows of the restored tables go, the
 * archive's come back, logs stay; triggers are off, and one auction.restored event is emitted instead.
 */
export async function replaceAuction(options: ReplaceOptions): Promise<{ report: LossReport; quietRealtime: boolean }> {
  const log = options.progress ?? (() => {});
  const archive = await checked(options, log);
  if (archive.header.auction.id !== options.auctionId)
    throw errors.notAnArchive(`it holds auction ${archive.header.auction.id}, not ${options.auctionId}`);
  return inBulkTransaction(options.url, options.backend, log, async (tx, written, quiet) => {
    const staged = await stageArchive(tx, archive, { ...options, hasVersion: hasVersion(tx), progress: log }, written);
    const report = await lossReport(tx, staged, options.auctionId);
    if (!(await options.confirm(report))) throw errors.declined();
    // Users deleted since the restore point stay deleted: rows naming them go as their keys' ON DELETE says.
    await matchUsers(tx, staged, { create: false });
    // Rows are locked for the duration: writes to this auction wait for the commit instead of being lost in it.
    await tx`select id from public.auctions where id = ${options.auctionId} for update`;
    await triggersOff(tx, 'a restore');
    await deleteCurrent(tx, options.auctionId, staged.header.secrets);
    // After the delete: a default category gone since the restore point comes back as the auction's own.
    await matchCategories(tx, staged);
    await insertStaged(tx, staged, { keepLogs: true, log });
    await linkImportedObjects(tx, options.auctionId, staged);
    await checkReferences(tx, options.auctionId, { usersGone: true });
    await rebuildRollups(tx, options.auctionId);
    await tx.unsafe('set local session_replication_role = origin');
    await tx`select domain.emit_event(${options.auctionId}::uuid, 'auction.restored', ${tx.json({
      ...options.event,
      tables: report.tables,
    } as unknown as postgres.JSONValue)})`;
    // Realtime subscribers of the auction's private topic hear of it once too (they should reload).
    const [send] = await tx`select to_regprocedure('realtime.send(jsonb, text, text, boolean)') as f`;
    if (send?.f)
      await tx`select realtime.send(${tx.json({ ...options.event } as unknown as postgres.JSONValue)},
        'auction.restored', ${`auction:${options.auctionId}`}, true)`;
    log('auction.restored emitted; committing');
    return { report, quietRealtime: quiet };
  });
}
