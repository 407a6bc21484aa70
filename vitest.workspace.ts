// What `pnpm test` runs (vitest.config.ts): the tests of every package and app, and of the repository's scripts.
// The other configurations (browser, outage, disk, day, upgrade, pg-cluster) name their own files.

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

export const testInclude = [
  ...testDirs.flatMap((dir) => [`${dir}/src/**/*.test.ts`, `${dir}/test/**/*.test.ts`]),
  // The repository's own scripts (the import-circle check, the conformance translator): no database.
  'scripts/**/*.test.ts',
];

export const testExclude = [
  '**/node_modules/**',
  // Browser tests need Chromium (`pnpm test:browser`, vitest.browser.config.ts).
  '**/*.browser.test.ts',
  // The outage test runs alone (`pnpm test:outage`), so does the full-disk test (`pnpm test:disk`).
  'apps/server/test/postgres-restart.test.ts',
  'apps/server/test/disk-full.test.ts',
];
