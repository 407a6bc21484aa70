// The order migrations run in: auth first (everything refers to auth.users), then storage, the domain,
// then webhooks and notifications (both consume the domain's event outbox).
import type { MigrationSet } from '@auction-ops/database';
import { authMigrations } from '@auction-ops/auth-core';
import { storageMigrations } from '@auction-ops/storage';
import { domainMigrations } from '@auction-ops/domain';
import { webhookMigrations } from '@auction-ops/webhooks';
import { notificationMigrations, reportingMigrations } from '@auction-ops/functions';

export const migrationSets: readonly MigrationSet[] = [
  authMigrations,
  storageMigrations,
  domainMigrations,
  webhookMigrations,
  notificationMigrations,
  reportingMigrations,
];
