// The auction domain migrations (tables, views, policies, RPCs, event triggers), applied after auth and storage.
import { fileURLToPath } from 'node:url';

export const domainMigrations = {
  name: 'domain',
  dir: fileURLToPath(new URL('../migrations', import.meta.url)),
} as const;
