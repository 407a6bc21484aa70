// What of DATA_DIR a backup copies: the cluster (minus what PostgreSQL's documentation says to leave out of a
// base backup), the stored objects and the generated secrets; not the lock, the log or upload spool files.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const PGDATA = 'postgres/data';

/** Directories whose contents are not copied (they are recreated empty); see "Backing Up the Data Directory". */
const EMPTIED = new Set(
  ['pg_wal', 'pg_replslot', 'pg_dynshmem', 'pg_notify', 'pg_serial', 'pg_snapshots', 'pg_stat_tmp', 'pg_subtrans'].map(
    (dir) => `${PGDATA}/${dir}`,
  ),
);
const SKIPPED_FILES = new Set([
  'server.pid',
  'server.json',
  'postgres/postgres.log',
  ...['postmaster.pid', 'postmaster.opts', 'backup_label', 'tablespace_map', 'recovery.signal', 'standby.signal'].map(
    (file) => `${PGDATA}/${file}`,
  ),
]);
const SKIPPED_DIRS = new Set(['storage/tmp']);
/**
 * The clusters `db upgrade` leaves beside the live one: the old major's, kept as the upgrade's own backup (a restore
 * must not bring it back as part of DATA_DIR), and the one a killed upgrade was building.
 */
const UPGRADE_DIRS = /^postgres\/data\.(pg\d+-[0-9TZ]+|upgrading)$/;

interface DataDirListing {
  dirs: string[];
  files: string[];
}

export function listDataDir(dataDir: string): DataDirListing {
  const listing: DataDirListing = { dirs: [], files: [] };
  const walk = (relative: string) => {
    const entries = readdirSync(join(dataDir, relative), { withFileTypes: true });
    for (const entry of entries) {
      const path = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (SKIPPED_DIRS.has(path) || UPGRADE_DIRS.test(path) || entry.name.startsWith('pgsql_tmp')) continue;
        listing.dirs.push(path);
        if (EMPTIED.has(path)) {
          if (path === `${PGDATA}/pg_wal`) listing.dirs.push(`${path}/archive_status`);
          continue;
        }
        walk(path);
      } else if (entry.isFile()) {
        if (SKIPPED_FILES.has(path) || entry.name === 'pg_internal.init') continue;
        listing.files.push(path);
      }
    }
  };
  walk('');
  return listing;
}

export const CLUSTER_DIR = PGDATA;
