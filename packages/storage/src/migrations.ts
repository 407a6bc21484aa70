// The storage migrations (see the package README for the order they run in).
import { fileURLToPath } from 'node:url';

export const storageMigrations = {
  name: 'storage',
  dir: fileURLToPath(new URL('../migrations', import.meta.url)),
  dependsOn: ['auth-core'],
} as const;
