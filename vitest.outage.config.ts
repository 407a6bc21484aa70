// The outage test (`pnpm test:outage`): a server of two processes on its own embedded PostgreSQL, which the test
// SIGKILLs under write load and times the recovery of. It runs alone, not among the parallel files of `pnpm test`:
// its bounds (back within 15 s, no request left hanging) measure the server, not a machine busy with 100 other files.
import { defineConfig } from 'vitest/config';
import { sourceAlias } from './vitest.source-alias.js';

export default defineConfig({
  test: {
    projects: [
      {
        resolve: sourceAlias,
        test: {
          name: 'outage',
          root: 'apps/server',
          include: ['test/postgres-restart.test.ts'],
          testTimeout: 180_000,
          hookTimeout: 120_000,
          pool: 'forks',
        },
      },
    ],
  },
});
