// The auction domain's migration sets: the domain itself (tables, views, policies, RPCs, event triggers), and
// its part of storage (its super admins as storage administrators, the lot-images bucket) for servers with
// storage.
import { fileURLToPath } from 'node:url';

export const domainMigrations = {
  name: 'domain',
  dir: fileURLToPath(new URL('../migrations', import.meta.url)),
  dependsOn: ['auth-core'],
} as const;

export const domainStorageMigrations = {
  name: 'domain-storage',
  dir: fileURLToPath(new URL('../migrations-storage', import.meta.url)),
  dependsOn: ['domain', 'storage'],
} as const;

export const domainRealtimeMigrations = {
  name: 'domain-realtime',
  dir: fileURLToPath(new URL('../migrations-realtime', import.meta.url)),
  dependsOn: ['domain', 'realtime'],
} as const;
