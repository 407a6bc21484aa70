// Every migration set the server applies. The order they run in follows each set's declared `dependsOn`
// (auth first, then storage and the domain, then what builds on the domain), not this list.
import type { MigrationSet } from '@auction-ops/database';
import { authMigrations } from '@auction-ops/auth-core';
import { storageMigrations } from '@auction-ops/storage';
import { domainMigrations, domainRealtimeMigrations, domainStorageMigrations } from '@auction-ops/domain';
import { realtimeMigrations } from '@auction-ops/realtime';
import { webhookMigrations } from '@auction-ops/webhooks';
import { notificationMigrations, reportingMigrations } from '@auction-ops/functions';
import { auctionDataMigrations } from '@auction-ops/auction-data';

export const migrationSets: readonly MigrationSet[] = [
  authMigrations,
  storageMigrations,
  domainMigrations,
  domainStorageMigrations,
  realtimeMigrations,
  domainRealtimeMigrations,
  webhookMigrations,
  notificationMigrations,
  reportingMigrations,
  auctionDataMigrations,
];
