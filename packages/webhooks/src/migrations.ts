// The webhooks migrations (see the package README for the order they run in).
import { fileURLToPath } from 'node:url';

export const webhookMigrations = {
  name: 'webhooks',
  dir: fileURLToPath(new URL('../migrations', import.meta.url)),
  dependsOn: ['domain'],
} as const;
