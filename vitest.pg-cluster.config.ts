// The read-replica and connection-pooler tests (scripts/test-pg-cluster.sh): they need Debian's postgresql-15 and
// pgbouncer, so the default run (vitest.config.ts) leaves them out.
import { defineConfig, defineProject } from 'vitest/config';
import { sourceAlias } from './vitest.source-alias.js';

const common = { root: 'apps/server', testTimeout: 60_000, hookTimeout: 120_000, pool: 'forks' as const };

export default defineConfig({
  test: {
    projects: [
      // Starts its own primary and replicas: it stops and restarts them.
      defineProject({
        resolve: sourceAlias,
        test: { ...common, name: 'replicas', include: ['test-pg-cluster/read-replicas.test.ts'] },
      }),
      // A PostgreSQL 15 primary behind PgBouncer for every file; servers send requests through the pooler with
      // preparing off. A slice of the end-to-end files: REST and RPCs with supabase-js, and auth.
      defineProject({
        resolve: sourceAlias,
        test: {
          ...common,
          name: 'pgbouncer',
          include: ['test-pg-cluster/pgbouncer.test.ts', 'test/domain-rest.test.ts', 'test/auth-flows.test.ts'],
          globalSetup: ['../../packages/database/src/testing/pooler-setup.ts'],
        },
      }),
    ],
  },
});
