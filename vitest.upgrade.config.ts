// The upgrade tests (`pnpm test:upgrade`): an earlier release's data directory under this one, and an embedded
// PostgreSQL cluster of an older major carried to the current one. Each starts whole servers and PostgreSQL clusters
// of its own, one file at a time, apart from the parallel files of `pnpm test`.
import { defineConfig } from 'vitest/config';
import { sourceAlias } from './vitest.source-alias.js';

export default defineConfig({
  test: {
    fileParallelism: false,
    projects: ['apps/server', 'apps/cli'].map((root) => ({
      resolve: sourceAlias,
      test: {
        name: `upgrade-${root.split('/')[1]}`,
        root,
        include: ['test-upgrade/**/*.test.ts'],
        testTimeout: 600_000,
        hookTimeout: 600_000,
        pool: 'forks' as const,
      },
    })),
  },
});
