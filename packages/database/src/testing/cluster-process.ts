// The run's PostgreSQL, started in a process of its own by global-setup.ts (`node --import tsx`), so that Vitest's
// main process goes on starting workers meanwhile (initdb runs synchronously: seconds on a busy machine) and test
// files that need no database never wait for one. Once the cluster accepts connections and the roles exist, it
// writes the cluster's description (or the error that stopped it) to the file named by its first argument; it
// keeps the cluster until its standard input closes (at the end of the run, or when the run's process dies), then
// stops it and removes the run's directory (the file included).
import { randomBytes } from 'node:crypto';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type EmbeddedCluster, startEmbeddedPostgres } from '../embedded-postgres.js';
import { ensureRoles } from '../roles.js';

const [file, dir] = process.argv.slice(2);
const pgDir = join(dir, 'pg');

function describe(description: object): void {
  writeFileSync(`${file}.part`, JSON.stringify(description));
  renameSync(`${file}.part`, file);
}

let cluster: EmbeddedCluster | undefined;
const starting = (async () => {
  cluster = await startEmbeddedPostgres({
    dir: pgDir,
    // Test data is disposable: trade durability for speed.
    settings: { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off', max_connections: 500 },
  });
  const authenticatorPassword = await ensureRoles(cluster.url, randomBytes(18).toString('base64url'));
  describe({ adminUrl: cluster.url, authenticatorPassword });
})();
starting.catch((error: unknown) =>
  describe({ error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
);

let ending = false;
async function end(): Promise<void> {
  if (ending) return;
  ending = true;
  await starting.catch(() => {});
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
}
process.stdin.on('end', end);
process.stdin.on('close', end);
process.stdin.resume();
