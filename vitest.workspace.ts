// The test projects, one per package and app. Vitest 4 no longer reads workspace files on its own;
// vitest.config.ts passes this list as `test.projects`, so this file stays the one place to add a project.
import { defineProject } from 'vitest/config';
import { sourceAlias } from './vitest.source-alias.js';

export const testDirs = [
  'packages/database',
  'packages/rest-engine',
  'packages/auth-core',
  'packages/domain',
  'packages/storage',
  'packages/webhooks',
  'packages/functions',
  'packages/realtime',
  'packages/backups',
  'packages/auction-data',
  'packages/observability',
  'packages/server-config',
  'packages/console',
  'apps/server',
  'apps/cli',
];

const packageProjects = testDirs.map((dir) =>
  defineProject({
    resolve: sourceAlias,
    test: {
      name: dir.split('/')[1],
      root: dir,
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      // The outage test runs alone (`pnpm test:outage`, vitest.outage.config.ts), so does the full-disk test
      // (`pnpm test:disk`, vitest.disk.config.ts); browser tests need Chromium
      // (`pnpm test:browser`, vitest.browser.config.ts).
      exclude: [
        '**/node_modules/**',
        '**/*.browser.test.ts',
        ...(dir === 'apps/server' ? ['test/postgres-restart.test.ts', 'test/disk-full.test.ts'] : []),
      ],
      testTimeout: 30_000,
      hookTimeout: 120_000,
      pool: 'forks',
      // A worker runs file after file of its project in one process, modules loaded once: importing the server
      // anew for each file was most of the suite's time. Files share that process, not their state: each makes
      // its own databases, servers and directories and closes them (docs/testing.md, "What a test may assume").
      isolate: false,
    },
  }),
);

// Tests of the repository's own scripts (the import-circle check): no database, run with the rest. The checks run
// as commands (Node and tsx, seconds each on a busy machine): the packages' test timeout, not Vitest's 5 s.
const scriptsProject = defineProject({
  test: {
    name: 'scripts',
    root: 'scripts',
    include: ['**/*.test.ts'],
    pool: 'forks',
    isolate: false,
    testTimeout: 30_000,
  },
});

export default [...packageProjects, scriptsProject];
