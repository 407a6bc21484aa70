// The full-disk test (`pnpm test:disk`): a real server with DATA_DIR on a small tmpfs it mounts (root only), filled
// with uploads until refused. It runs alone, not among the parallel files of `pnpm test`: it mounts filesystems and
// fills one, and its server's embedded PostgreSQL should not compete with a hundred other files for the machine.
import { defineConfig } from 'vitest/config';
import { sourceAlias } from './vitest.source-alias.js';

export default defineConfig({
  test: {
    projects: [
      {
        resolve: sourceAlias,
        test: {
          name: 'disk',
          root: 'apps/server',
          include: ['test/disk-full.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          pool: 'forks',
        },
      },
    ],
  },
});
