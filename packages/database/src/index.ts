export {
  startEmbeddedPostgres,
  runningClusterUrl,
  systemUser,
  type EmbeddedCluster,
  type EmbeddedOptions,
} from './embedded-postgres.js';
export { WATCHDOG_MARK } from './postgres-watchdog.js';
export { lockDataDir, DataDirInUseError } from './data-dir-lock.js';
export { runningServerInfo, writeServerInfo, type ServerInfo } from './server-info.js';
export { assertReachable, untraversableAncestor, UnreachableDirectoryError } from './reachable.js';
export {
  ensureRoles,
  recordAuthenticatorPassword,
  authenticatorUrl,
  REQUEST_ROLES,
  AUTHENTICATOR,
  type RequestRole,
} from './roles.js';
export {
  checkRequestRole,
  inRequestTransaction,
  PoolTimeoutError,
  RESERVE_TIMEOUT_MS,
  requestContext,
  reserveWithin,
} from './request-transaction.js';
export {
  createReplicaSet,
  describeUrl,
  type ReplicaSet,
  type ReplicaSetOptions,
  type ReplicaStatus,
} from './replica-set.js';
export {
  migrate,
  migrationStatus,
  releaseStatus,
  checkDatabaseRelease,
  loadMigrations,
  orderMigrationSets,
  migrationsFingerprint,
  MigrationError,
  type MigrationSet,
  type Migration,
  type MigrationStatus,
  type ReleaseStatus,
  type MigrateOptions,
} from './migrations.js';
export { NewerReleaseError, compareVersions } from './release-ledger.js';
export { startSupervisedPostgres, type RestartPolicy, type SupervisorOptions } from './postgres-supervisor.js';
export {
  startAvailabilityMonitor,
  type AvailabilityMonitor,
  type AvailabilityOptions,
} from './availability-monitor.js';
export { prepareDatabase, NoClusterError, type PrepareOptions, type PreparedDatabase } from './prepare.js';
export { findFreePort } from './ports.js';
export { quoteIdent, qualified } from './quote-ident.js';
export { reconnectBackoff } from './reconnect-backoff.js';
export { createWakeableSleep, type WakeableSleep } from './wakeable-sleep.js';
export {
  upgradeCluster,
  type MajorUpgradeOptions,
  type MajorUpgradeResult,
} from './major-upgrade/upgrade-cluster.js';
export {
  clusterMajor,
  binariesMajor,
  checkServerVersion,
  MIN_EXTERNAL_MAJOR,
} from './major-upgrade/cluster-version.js';
export { PostgresVersionError, MajorUpgradeError, upgradeErrors } from './major-upgrade/upgrade-errors.js';
export { fetchOldBinaries, OLD_BUILDS } from './major-upgrade/old-binaries.js';
export { catalogSnapshot, compareCatalogs } from './major-upgrade/catalog-snapshot.js';
export { schemaTexts, differingObjects } from './schema-text.js';
export {
  startDiskFloor,
  floorBytesOf,
  isOutOfSpace,
  statfsNearest,
  DISK_FLOOR_OPERATIONS,
  type DiskFloor,
  type DiskFloorOperation,
  type DiskFloorOptions,
  type DiskReading,
} from './disk-floor.js';
