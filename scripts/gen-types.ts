// `pnpm gen:types`: regenerates packages/domain/types/database.ts (the `Database` type of schema public) from the
// migrations, on a throwaway embedded cluster. It used to migrate DATA_DIR, the cluster a developer serves from.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { prepareDatabase } from '../packages/database/src/index.js';
import { generateTypeScriptTypes } from '../packages/rest-engine/src/index.js';
import { migrationSets } from '../packages/server-config/src/migration-sets.js';
import { version } from '../apps/server/src/version.js';
import { loadPostgres } from './support/postgres-client.js';

const OUT = fileURLToPath(new URL('../packages/domain/types/database.ts', import.meta.url));

const dir = mkdtempSync(join(tmpdir(), 'auction-ops-gen-types-'));
// As root the embedded PostgreSQL runs as its own user, which must pass through this directory.
chmodSync(dir, 0o755);
try {
  const db = await prepareDatabase({ dataDir: dir, migrationSets, release: version });
  try {
    const postgres = await loadPostgres<Parameters<typeof generateTypeScriptTypes>[0]>();
    const sql = postgres(db.ownerUrl, { max: 1, onnotice: () => {} });
    try {
      writeFileSync(OUT, await generateTypeScriptTypes(sql, { schemas: ['public'] }));
    } finally {
      await sql.end();
    }
  } finally {
    await db.close();
  }
  console.log(`wrote ${OUT}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
