// The `reporting` migration set: per-dataset tables' schema, imports in flight, generate-sql conversations.
import { fileURLToPath } from 'node:url';

export const reportingMigrations = {
  name: 'reporting',
  dir: fileURLToPath(new URL('../../migrations/reporting', import.meta.url)),
  dependsOn: ['domain'],
} as const;
