// `auction-ops migrate`: applies pending migrations (and makes the embedded cluster when DATA_DIR holds none).
import { migrate } from '@auction-ops/database';
import { migrationSets } from '@auction-ops/server-config/migration-sets';
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
