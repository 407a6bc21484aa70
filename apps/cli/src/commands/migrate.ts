// `auction-ops migrate`: applies pending migrations. `auction-ops status`: database and pending migrations.
import { migrate, migrationStatus } from '@auction-ops/database';
import { migrationSets } from '@auction-ops/server';
import { withDatabase } from '../database.js';

export function migrateCommand(): Promise<void> {
  return withDatabase(async (db) => {
    const applied = await migrate(db.ownerUrl, migrationSets, (m) => console.log(m));
    console.log(applied.length === 0 ? 'database is up to date' : `applied ${applied.length} migration(s)`);
  });
}

export function statusCommand(): Promise<void> {
  return withDatabase(async (db) => {
    const status = await migrationStatus(db.ownerUrl, migrationSets);
    const where = db.config.DATABASE_URL ? 'external (DATABASE_URL)' : `embedded in ${db.config.DATA_DIR}`;
    console.log(`database: up, ${where}`);
    console.log(`migrations: ${status.applied.length} applied, ${status.pending.length} pending`);
    for (const name of status.pending) console.log(`  pending ${name}`);
  });
}
