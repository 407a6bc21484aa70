// Test support shared by every package: per-file databases from migrated templates.
export { createTestDatabase, type TestDatabase } from './test-database.js';
export { testCluster, type TestCluster } from './test-cluster.js';
export {
  installedPgBouncer,
  installedPostgres,
  startPgBouncer,
  startPgCluster,
  type ClusterServer,
  type PgBouncer,
  type PgCluster,
} from './pg-cluster.js';
export { startTcpRelay, type TcpRelay } from './tcp-relay.js';
export { copyRunSharedDirectory } from './run-shared-directory.js';
export { archiveNow, segmentArchived, waitForArchivedSegment } from './wal-archive.js';
