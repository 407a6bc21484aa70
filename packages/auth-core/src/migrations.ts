// The auth schema migrations, applied first (everything else refers to auth.users and auth.uid()).
import { fileURLToPath } from 'node:url';

export const authMigrations = {
  name: 'auth-core',
  dir: fileURLToPath(new URL('../migrations', import.meta.url)),
} as const;
