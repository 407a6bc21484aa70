// @auction-ops/auction-data: one auction's data as a unit (architecture decision 11): the map of its tables,
// export to an archive, import into another instance, and restore to a point in time from the backups.
export { TABLES, type TableEntry } from './table-map.js';
export { uncoveredTables } from './scope-catalog.js';
export {
  exportAuction,
  resolveAuction,
  type ExportOptions,
  type ExportResult,
  type ArchiveHeader,
  type Manifest,
} from './auction-export.js';
export {
  importAuction,
  BULK_ORIGIN_PREFIX,
  type ImportOptions,
  type ImportResult,
} from './auction-import.js';
export { readArchiveHeader } from './archive-staging.js';
export { DEFAULT_MAX_BYTES } from './archive-check.js';
export { restoreAuction, type RestoreAuctionOptions, type RestoreAuctionResult } from './auction-restore.js';
export { describeLoss, type LossReport, type TableLoss } from './loss-report.js';
export { AuctionDataError } from './auction-data-errors.js';
export { auctionDataMigrations } from './migrations.js';
