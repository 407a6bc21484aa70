// `db upgrade`: carries the embedded cluster of an older PostgreSQL major to this release's, as a logical copy
// between two clusters side by side (the npm builds ship no pg_upgrade or pg_dump). The old directory is never
// written to beyond its own start and stop, and is kept after the swap as the upgrade's backup.
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import postgres from 'postgres';
import { binaries, startEmbeddedPostgres, stopOrphan, type EmbeddedCluster } from '../embedded-postgres.js';
import { lockDataDir } from '../data-dir-lock.js';
import { ensureRoles, requestStatementTimeout, setRequestStatementTimeout } from '../roles.js';
import { migrate, type MigrationSet } from '../migrations.js';
import { binariesMajor, clusterMajor } from './cluster-version.js';
import { fetchOldBinaries } from './old-binaries.js';
import { appliedMigrations } from './ledger-check.js';
import { missingTables, recreateTables } from './runtime-tables.js';
import { catalogSnapshot, compareCatalogs } from './catalog-snapshot.js';
import { leafTables, sequenceValues } from './table-list.js';
import { copyRows, setSequences } from './copy-rows.js';
import { compareDigests, rowDigests, sequenceDigests } from './row-digests.js';
import { keptDirName, swapDataDirs } from './swap-dirs.js';
import { upgradeErrors } from './upgrade-errors.js';

export interface MajorUpgradeOptions {
  /** DATA_DIR: the cluster is in postgres/data below it. */
  dataDir: string;
  migrationSets: readonly MigrationSet[];
  /** Binaries of the old major already on disk; else the npm build is fetched into the cache. */
  oldBinDir?: string;
  /** Settings of the old cluster while it runs (WAL archiving, so its last segments still reach the archive). */
  oldSettings?: Record<string, string | number>;
  log?: (line: string) => void;
  /** Aborts the upgrade between steps and tables (Ctrl-C): it then cleans up as after any failure. */
  signal?: AbortSignal;
}

export interface MajorUpgradeResult {
  oldMajor: number;
  newMajor: number;
  /** The old cluster's directory, kept under DATA_DIR/postgres. */
  keptDir: string;
  tables: number;
  rows: number;
  seconds: number;
}

const UPGRADING = 'data.upgrading';

/** Sessions that print values alike on both sides (row digests) and deparse with every name qualified. */
const connect = (url: string, replica: boolean, max = 5) =>
  postgres(url, {
    max,
    onnotice: () => {},
    connection: {
      // Only pg_catalog (always searched): every other name prints schema-qualified. An empty value would be
      // dropped from the startup packet, leaving the default path.
      search_path: 'pg_catalog',
      TimeZone: 'UTC',
      application_name: 'auction-ops db upgrade',
      ...(replica ? { session_replication_role: 'replica' } : {}),
    },
  });

export async function upgradeCluster(options: MajorUpgradeOptions): Promise<MajorUpgradeResult> {
  // Every progress line is also a point where an abort is honoured, before the next step or table starts.
  const log = (line: string) => {
    options.signal?.throwIfAborted();
    options.log?.(line);
  };
  const started = performance.now();
  const postgresDir = join(options.dataDir, 'postgres');
  const pgdata = join(postgresDir, 'data');
  const oldMajor = clusterMajor(pgdata);
  if (oldMajor === undefined) throw upgradeErrors.noCluster(pgdata);
  const newMajor = binariesMajor((await binaries()).postgres);
  if (oldMajor === newMajor) throw upgradeErrors.nothingToUpgrade(pgdata, oldMajor);
  if (oldMajor > newMajor) throw upgradeErrors.newerCluster(pgdata, oldMajor, newMajor);
  const lock = lockDataDir(options.dataDir); // the server (or a CLI command) holding the cluster refuses us here
  const upgrading = join(postgresDir, UPGRADING);
  let oldCluster: EmbeddedCluster | undefined;
  let newCluster: EmbeddedCluster | undefined;
  const pools: postgres.Sql[] = [];
  const stopAll = async () => {
    await Promise.all(pools.splice(0).map((p) => p.end({ timeout: 5 })));
    await Promise.all([oldCluster?.stop(), newCluster?.stop()]);
  };
  try {
    // Under the lock nobody else upgrades: a directory left here is a killed run's, and never the live cluster. Its
    // PostgreSQL may still run (own process group, so it outlives a killed command): stopped before the removal.
    if (existsSync(upgrading)) {
      log(`removing ${upgrading}, left by an upgrade that did not finish`);
      await stopOrphan(upgrading);
      rmSync(upgrading, { recursive: true, force: true });
    }
    const oldBin = options.oldBinDir ?? fetchOldBinaries(oldMajor, log);
    const found = binariesMajor(join(oldBin, 'postgres'));
    if (found !== oldMajor) throw upgradeErrors.wrongOldBinaries(oldBin, found, oldMajor);
    log(`starting the PostgreSQL ${oldMajor} cluster with ${oldBin}`);
    oldCluster = await startEmbeddedPostgres({ dir: postgresDir, binDir: oldBin, settings: options.oldSettings });
    const oldSql = connect(oldCluster.url, false);
    pools.push(oldSql);
    const only = await appliedMigrations(oldSql, options.migrationSets);
    const password = await authenticatorPassword(oldSql);
    log(`creating the PostgreSQL ${newMajor} cluster in ${upgrading}`);
    // Durability of each commit is not needed here: the clean stop before the swap writes everything out.
    newCluster = await startEmbeddedPostgres({
      dir: postgresDir,
      dataDirName: UPGRADING,
      settings: { synchronous_commit: 'off' },
    });
    const newSql = connect(newCluster.url, true);
    pools.push(newSql);
    await ensureRoles(newCluster.url, password);
    // The request connections' statement timeout, which each start sets as the authenticator's default.
    const timeout = await requestStatementTimeout(oldSql);
    if (timeout !== undefined) await setRequestStatementTimeout(newCluster.url, timeout);
    await migrate(newCluster.url, options.migrationSets, () => {}, undefined, { only });
    log(`applied the ${only.size} migrations the old cluster lists`);
    const runtime = await missingTables(oldSql, newSql);
    await recreateTables(oldSql, newSql, runtime);
    if (runtime.length > 0) log(`recreated ${runtime.length} tables made at run time (dataset imports)`);
    const catalogs = compareCatalogs(await catalogSnapshot(oldSql), await catalogSnapshot(newSql), isLedgerAddition);
    if (catalogs.missing.length > 0) throw upgradeErrors.uncarried(withoutParts(catalogs.missing));
    if (catalogs.different.length > 0) throw upgradeErrors.mismatch(catalogs.different);

    const tables = await leafTables(oldSql);
    const copyStarted = performance.now();
    const oldUrl = oldCluster.url;
    const rows = await copyRows(
      () => connect(oldUrl, false, 1),
      newSql,
      tables,
      (p) => log(`copied ${p.table}: ${p.rows} rows (${p.done}/${p.total})`),
    );
    const sequences = await sequenceValues(oldSql);
    await setSequences(newSql, sequences);
    log(`copied ${rows} rows of ${tables.length} tables in ${seconds(copyStarted)} s; checking`);
    const before = new Map([...(await rowDigests(oldSql, tables)), ...sequenceDigests(sequences)]);
    const after = new Map([...(await rowDigests(newSql, tables)), ...sequenceDigests(await sequenceValues(newSql))]);
    const differences = compareDigests(before, after);
    if (differences.length > 0) throw upgradeErrors.mismatch(differences);
    log('every table has the same rows (count and digest) and every sequence the same position');
    // Planner statistics are not carried by a copy: without them the first queries would plan on guesses.
    await newSql`analyze`;

    await stopAll();
    options.signal?.throwIfAborted();
    const kept = keptDirName(oldMajor);
    swapDataDirs(postgresDir, UPGRADING, kept);
    return {
      oldMajor,
      newMajor,
      keptDir: join(postgresDir, kept),
      tables: tables.length,
      rows,
      seconds: Number(seconds(started)),
    };
  } catch (error) {
    await stopAll().catch(() => {});
    rmSync(upgrading, { recursive: true, force: true });
    throw error;
  } finally {
    lock.release();
  }
}

async function authenticatorPassword(sql: postgres.Sql): Promise<string | undefined> {
  const [{ exists }] = await sql<{ exists: boolean }[]>`
    select to_regclass('auction_ops.settings') is not null as exists`;
  if (!exists) return undefined;
  const [row] = await sql<{ value: string }[]>`
    select value from auction_ops.settings where key = 'authenticator_password'`;
  return row?.value;
}

/**
 * The release ledger (migrations.ts LEDGER: a `release` column and a `releases` table) is made by the migration
 * runner, not by a migration, so an old cluster from before it lacks it while the new one has it. Rows carry over
 * without it (COPY names the old columns), as the new release's first start would have added it to the old ledger.
 */
const isLedgerAddition = (key: string) =>
  /^(relation auction_ops\.releases|(column|constraint|index) auction_ops\.releases[._ ].*|column auction_ops\.migrations\.release)$/.test(
    key,
  );

/** A relation's columns are named with it, not each on its own. */
function withoutParts(missing: string[]): string[] {
  const relations = missing.filter((key) => key.startsWith('relation ')).map((key) => key.slice('relation '.length));
  return missing.filter((key) => !relations.some((r) => key.startsWith(`column ${r}.`)));
}

const seconds = (since: number) => ((performance.now() - since) / 1000).toFixed(1);
