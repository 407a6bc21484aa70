// The test projects, one per package and app. Vitest 4 no longer reads workspace files on its own;
// vitest.config.ts passes this list as `test.projects`, so this file stays the one place to add a project.
import { fileURLToPath } from 'node:url';
import { defineProject } from 'vitest/config';

// The workspace reads rest-engine's sources (its package exports point at the published dist/), as tsconfig.json's
// `paths` do for tsc and tsx.
const restEngineSource = fileURLToPath(new URL('./packages/rest-engine/src/index.ts', import.meta.url));

const dirs = [
  'packages/database',
  'packages/rest-engine',
  'packages/auth-core',
  'packages/domain',
  'packages/storage',
  'packages/webhooks',
  'packages/functions',
  'packages/realtime',
  'packages/backups',
  'packages/observability',
  'apps/server',
  'apps/cli',
];

export default dirs.map((dir) =>
  defineProject({
    resolve: { alias: [{ find: /^@auction-ops\/rest-engine$/, replacement: restEngineSource }] },
    test: {
      name: dir.split('/')[1],
      root: dir,
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      // The outage test runs alone (`pnpm test:outage`, vitest.outage.config.ts).
      exclude: ['**/node_modules/**', ...(dir === 'apps/server' ? ['test/postgres-restart.test.ts'] : [])],
      testTimeout: 30_000,
      hookTimeout: 120_000,
      pool: 'forks',
    },
  }),
);
