// `auction-ops migrate`: applies pending migrations. `auction-ops status`: database, release and pending migrations.
import { migrate, migrationStatus, releaseStatus } from '@auction-ops/database';
import { migrationSets } from '@auction-ops/server';
import { version } from '@auction-ops/server/version';
import { withDatabase } from '../database.js';

export function migrateCommand(): Promise<void> {
  return withDatabase(
    async (db) => {
      const applied = await migrate(db.ownerUrl, migrationSets, (m) => console.log(m), version);
      console.log(applied.length === 0 ? 'database is up to date' : `applied ${applied.length} migration(s)`);
    },
    { create: true },
  );
}

export function statusCommand(): Promise<void> {
  return withDatabase(async (db) => {
    const release = await releaseStatus(db.ownerUrl, migrationSets, version);
    const where = db.config.DATABASE_URL ? 'external (DATABASE_URL)' : `embedded in ${db.config.DATA_DIR}`;
    console.log(`database: up, ${where}`);
    const last = release.last ? `${release.last.version} (${release.last.at.toISOString()})` : 'none recorded';
    console.log(`release: this is ${version}; last started on this database: ${last}`);
    if (release.refusal) {
      // A newer release's ledger makes "pending" meaningless for this one: say why it may not run, and fail.
      console.log(`migrations: refused: ${release.refusal}`);
      process.exitCode = 1;
      return;
    }
    const status = await migrationStatus(db.ownerUrl, migrationSets);
    console.log(`migrations: ${status.applied.length} applied, ${status.pending.length} pending`);
    for (const name of status.pending) console.log(`  pending ${name}`);
  });
}
