// The old cluster's migration ledger decides the new cluster's schema: exactly the migrations it lists, with the
// checksums it recorded. A ledger naming migrations this release does not know was written by a newer release.
import type postgres from 'postgres';
import { loadMigrations, MigrationError, type MigrationSet } from '../migrations.js';
import { upgradeErrors } from './upgrade-errors.js';

/** The `set/name` keys to apply on the new cluster; throws on unknown or edited migrations. */
export async function appliedMigrations(oldSql: postgres.Sql, sets: readonly MigrationSet[]): Promise<Set<string>> {
  const [{ exists }] = await oldSql<{ exists: boolean }[]>`
    select to_regclass('auction_ops.migrations') is not null as exists`;
  if (!exists) return new Set();
  const ledger = await oldSql<{ package: string; name: string; checksum: string }[]>`
    select package, name, checksum from auction_ops.migrations`;
  const known = new Map(loadMigrations(sets).map((m) => [`${m.set}/${m.name}`, m.checksum]));
  const unknown = ledger.map((l) => `${l.package}/${l.name}`).filter((key) => !known.has(key));
  if (unknown.length > 0) throw upgradeErrors.newerLedger(unknown);
  for (const l of ledger)
    if (known.get(`${l.package}/${l.name}`) !== l.checksum)
      throw new MigrationError(`migration ${l.package}/${l.name} differs from the one the old cluster applied`);
  return new Set(ledger.map((l) => `${l.package}/${l.name}`));
}
