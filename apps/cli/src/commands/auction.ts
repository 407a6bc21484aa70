// `auction-ops auction export|import|restore`: one auction's data, thin over @auction-ops/auction-data
// (docs/auction-data.md). Progress goes to stderr; stdout keeps the result.
import { createReadStream, createWriteStream, existsSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import {
  AuctionDataError,
  DEFAULT_MAX_BYTES,
  describeLoss,
  exportAuction,
  importAuction,
  readArchiveHeader,
  restoreAuction,
  type LossReport,
} from '@auction-ops/auction-data';
import { archivingBackend, backupErrors, resolveTarget } from '@auction-ops/backups';
import { createFsBackend, type StorageBackend } from '@auction-ops/storage';
import type { Config } from '@auction-ops/server-config';
import postgres from 'postgres';
import { migrate, NoClusterError } from '@auction-ops/database';
import { migrationSets } from '@auction-ops/server-config/migration-sets';
import { version } from '@auction-ops/server/version';
import { type CliDatabase, openDatabase } from '../database.js';
import { UsageError } from '../usage-error.js';

const log = (message: string) => console.error(message);

/** The configured object store, archiving what it writes when BACKUP_TARGET is set (as the server's does). */
async function storageBackend(config: Config): Promise<StorageBackend> {
  let backend: StorageBackend;
  if (config.STORAGE_BACKEND === 's3') {
    if (!config.S3_BUCKET) throw new UsageError('S3_BUCKET is required when STORAGE_BACKEND=s3');
    const { createS3Backend } = await import('@auction-ops/storage/s3');
    backend = createS3Backend({
      bucket: config.S3_BUCKET,
      region: config.S3_REGION,
      endpoint: config.S3_ENDPOINT,
      forcePathStyle: config.S3_FORCE_PATH_STYLE,
      accessKeyId: config.S3_ACCESS_KEY_ID,
      secretAccessKey: config.S3_SECRET_ACCESS_KEY,
    });
  } else backend = createFsBackend(join(config.DATA_DIR, 'storage'));
  if (!config.BACKUP_TARGET) return backend;
  return archivingBackend(backend, resolveTarget(config.BACKUP_TARGET), (message, fields) =>
    log(`${message} ${JSON.stringify(fields)}`),
  );
}

async function ask(question: string, hidden = false): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  if (hidden) {
    // Echo nothing of the answer: readline writes through _writeToOutput.
    const r = rl as unknown as { _writeToOutput: (s: string) => void; output: NodeJS.WritableStream };
    r._writeToOutput = (s: string) => {
      if (s.startsWith(question)) r.output.write(question);
    };
  }
  try {
    return await rl.question(question);
  } finally {
    if (hidden) process.stderr.write('\n');
    rl.close();
  }
}

async function passphrase(confirm: boolean): Promise<string> {
  const fromEnv = process.env.AUCTION_ARCHIVE_PASSPHRASE;
  if (fromEnv) return fromEnv;
  if (!process.stdin.isTTY)
    throw new UsageError('set AUCTION_ARCHIVE_PASSPHRASE (no terminal to ask for the passphrase on)');
  const first = await ask('Passphrase: ', true);
  if (!first) throw new UsageError('an empty passphrase protects nothing');
  if (confirm && (await ask('Passphrase again: ', true)) !== first) throw new UsageError('the passphrases differ');
  return first;
}

/** AUCTION_ARCHIVE_MAX_BYTES: the most bytes an imported archive may decompress to. */
function maxArchiveBytes(): number {
  const value = process.env.AUCTION_ARCHIVE_MAX_BYTES;
  if (value === undefined || value === '') return DEFAULT_MAX_BYTES;
  if (!/^[1-9][0-9]{0,15}$/.test(value))
    throw new UsageError(`AUCTION_ARCHIVE_MAX_BYTES must be a number of bytes, not ${JSON.stringify(value)}`);
  return Number(value);
}

async function archiveHasSecrets(file: string): Promise<boolean> {
  return (await readArchiveHeader(createReadStream(file))).secrets;
}

type AuctionArgs =
  | { action: 'export'; auction: string; out: string; includeSecrets: boolean }
  | { action: 'import'; file: string; create: boolean }
  | { action: 'restore'; auction: string; toTime: string; yes: boolean; target?: string };

export async function auctionCommand(args: AuctionArgs): Promise<void> {
  if (args.action === 'export') return exportCommand(args.auction, args.out, args.includeSecrets);
  if (args.action === 'import') return importCommand(args.file, args.create);
  return restoreCommand(args.auction, args.toTime, args.yes, args.target);
}

async function exportCommand(auction: string, out: string, includeSecrets: boolean): Promise<void> {
  const file = resolve(out);
  const secrets = includeSecrets ? await passphrase(true) : undefined;
  const db = await openDatabase();
  const sql = postgres(db.ownerUrl, { max: 2, onnotice: () => {} });
  const backend = await storageBackend(db.config);
  // Written beside the target and renamed at the end: a failed export leaves no partial file under that name.
  const partial = `${file}.partial`;
  try {
    const started = performance.now();
    const result = await exportAuction({
      sql,
      backend,
      auction,
      out: createWriteStream(partial, { mode: 0o600 }),
      secretsPassphrase: secrets,
      progress: log,
    });
    renameSync(partial, file);
    const rows = Object.values(result.manifest.tables).reduce((n, t) => n + t.rows, 0);
    const objects = Object.keys(result.manifest.objects).length;
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(
      `exported ${result.auction.slug} (${result.auction.id}): ${rows} rows, ${objects} objects${
        secrets ? ', webhook secrets encrypted' : ', without webhook secrets'
      } to ${file} in ${seconds} s`,
    );
  } finally {
    rmSync(partial, { force: true });
    await sql.end();
    await backend.close();
    await db.close();
  }
}

/**
 * The database to import into. `create` (--create): DATA_DIR may hold none yet, and the release's migrations are
 * applied, as `migrate` would, so that moving an auction to a new instance is one command.
 */
async function importTarget(create: boolean): Promise<CliDatabase> {
  if (!create)
    return openDatabase().catch((error) => {
      if (!(error instanceof NoClusterError)) throw error;
      throw new NoClusterError(`${error.message}; or pass --create to make it for this import`);
    });
  const db = await openDatabase({ create: true });
  try {
    const applied = await migrate(db.ownerUrl, migrationSets, () => {}, version);
    if (applied.length) log(`applied ${applied.length} migration(s) to ${db.config.DATA_DIR}`);
    return db;
  } catch (error) {
    await db.close();
    throw error;
  }
}

async function importCommand(fileArg: string, create: boolean): Promise<void> {
  const file = resolve(fileArg);
  if (!existsSync(file)) throw new UsageError(`no such file: ${file}`);
  const maxBytes = maxArchiveBytes();
  const secret = (await archiveHasSecrets(file)) ? await passphrase(false) : undefined;
  const db = await importTarget(create);
  const backend = await storageBackend(db.config);
  try {
    const started = performance.now();
    const result = await importAuction({
      url: db.ownerUrl,
      backend,
      spoolDir: join(db.config.DATA_DIR, 'storage', 'tmp'),
      file,
      maxBytes,
      passphrase: secret,
      progress: log,
    });
    const rows = Object.values(result.tables).reduce((n, t) => n + t, 0);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(
      `imported ${result.auction.slug} (${result.auction.id}): ${rows} rows, ${result.objects} objects in ${seconds} s; ` +
        `users: ${result.users.matched} matched, ${result.users.created.length} created unconfirmed`,
    );
    for (const u of result.users.created) console.log(`  created ${u.email ?? `(no e-mail) ${u.id}`}`);
    if (result.users.created.length)
      console.log('  they sign in after a password reset ("Forgot password") or an invitation to the auction');
  } finally {
    await backend.close();
    await db.close();
  }
}

async function confirmLoss(report: LossReport, slug: string, time: string, yes: boolean): Promise<boolean> {
  log(`Restoring ${slug} to ${time} changes these rows of it (other auctions are not touched):`);
  log(describeLoss(report));
  if (yes) return true;
  if (!process.stdin.isTTY) throw new UsageError('no terminal to confirm on: pass --yes to restore');
  return /^y(es)?$/i.test((await ask(`Restore ${slug} to ${time}? [y/N] `)).trim());
}

async function restoreCommand(auction: string, toTime: string, yes: boolean, targetSpec?: string): Promise<void> {
  const db = await openDatabase();
  if (db.config.DATABASE_URL) {
    await db.close();
    throw backupErrors.externalDatabase();
  }
  const target = resolveTarget(targetSpec ?? db.config.BACKUP_TARGET);
  const backend = await storageBackend(db.config);
  try {
    const result = await restoreAuction({
      url: db.ownerUrl,
      backend,
      spoolDir: join(db.config.DATA_DIR, 'storage', 'tmp'),
      target,
      auction,
      toTime,
      scratchRoot: process.env.AUCTION_RESTORE_SCRATCH_DIR ?? dirname(resolve(db.config.DATA_DIR)),
      confirm: (report) => confirmLoss(report, auction, toTime, yes),
      progress: log,
    });
    const changed = Object.values(result.report.tables).reduce((n, t) => n + t.removed + t.reverted + t.back, 0);
    console.log(
      `restored ${result.auction.slug} to ${result.to_time} from backup ${result.backup_id}: ${changed} rows changed; ` +
        'one auction.restored event emitted',
    );
  } catch (error) {
    if (error instanceof AuctionDataError && error.code === 'declined') {
      console.log(error.message);
      return;
    }
    throw error;
  } finally {
    await backend.close();
    target.store.close();
    await db.close();
  }
}
