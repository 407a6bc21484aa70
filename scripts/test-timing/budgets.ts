// The wall-time budget of each test file of `pnpm test`, in seconds (docs/testing.md "Budgets"): what a file may take
// from its start in a worker to its end, in the full run on CI's 2-core machine (files in parallel). A file over
// its budget is named at the end of the run (scripts/test-timing/slow-files-reporter.ts). Raising a budget is a
// change to review like any other: say in the commit what the file waits for and why it cannot wait less.
export const DEFAULT_BUDGET_SECONDS = 30;

/** Files that start whole servers, clusters or commands as processes, with the reason for each. */
const BUDGETS: Record<string, number> = {
  // Seven servers as processes, each on a fresh DATA_DIR (initdb, every migration), stopped by signals.
  'apps/server/test/supervisor-signals.test.ts': 180,
  // About 25 runs of the command (Node and tsx each), four of them migrating a database from empty.
  'apps/cli/test/cli.test.ts': 120,
  // Servers as processes on fresh data directories (embedded clusters), restarts, SIGKILL and recovery.
  'apps/server/test/server-process.test.ts': 90,
  // Base backups, WAL archiving and restores of a whole server's data directory.
  'apps/server/test/backups.test.ts': 90,
  // A primary and workers as processes (WEB_CONCURRENCY=2), killed and replaced, TLS reloads.
  'apps/server/test/server-cluster.test.ts': 75,
  // Seeding, exporting and importing through the command, two embedded clusters.
  'apps/cli/test/auction.test.ts': 75,
  // An archiving embedded cluster, backups taken under writes, five point-in-time restores (each a cluster start).
  'packages/backups/test/backup-restore.test.ts': 75,
  // A migrated archiving cluster and a base backup, then restore drills: each restores the backup and its WAL and
  // starts the copy twice (replay, then the checks).
  'packages/backups/test/restore-drill.test.ts': 75,
  // A server as a process on its own embedded cluster, a base backup, and a restore drill through the command.
  'apps/server/test/console-status.test.ts': 90,
  // Backups to and restores from a fake S3, each restore a cluster start.
  'packages/backups/test/s3-target.test.ts': 60,
  // Whole auctions exported and imported between databases, archives checked row by row.
  'packages/auction-data/test/export-import.test.ts': 60,
  // The command migrating a database, then generating types from it.
  'apps/cli/test/gen-types.test.ts': 60,
  // Runs of the command against data directories, one process each.
  'apps/cli/test/data-dir.test.ts': 60,
  // Backups through the command, an embedded cluster archiving.
  'apps/cli/test/backup.test.ts': 60,
};

export function budgetOf(file: string): number {
  return BUDGETS[file] ?? DEFAULT_BUDGET_SECONDS;
}
