// The short day (`pnpm test:day`): the day benchmark (scripts/bench-day) at a small K with PostgreSQL and worker
// SIGKILLs and a receiver down in its traffic, audited. It runs alone, like the outage test: a whole server, its
// cluster and the load processes of their own, whose recovery is the server's and not a busy machine's.
import { defineConfig } from 'vitest/config';
import { sourceAlias } from './vitest.source-alias.js';

export default defineConfig({
  test: {
    projects: [
      {
        resolve: sourceAlias,
        test: {
          name: 'day',
          root: 'apps/server',
          include: ['test-day/*.test.ts'],
          testTimeout: 300_000,
          hookTimeout: 120_000,
          pool: 'forks',
        },
      },
    ],
  },
});
