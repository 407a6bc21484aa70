// The browser tests (`pnpm test:browser`, scripts/test-browser.sh): files named `*.browser.test.ts` drive headless
// Chromium (apps/server/test/support/browser.ts). They run apart from `pnpm test`, which needs nothing but Node.
import { defineConfig } from 'vitest/config';
import { sourceAlias } from './vitest.source-alias.js';
import { testDirs } from './vitest.workspace.js';

export default defineConfig({
  test: {
    globalSetup: ['./packages/database/src/testing/global-setup.ts'],
    projects: testDirs.map((dir) => ({
      resolve: sourceAlias,
      test: {
        name: `${dir.split('/')[1]}-browser`,
        root: dir,
        include: ['test/**/*.browser.test.ts'],
        testTimeout: 60_000,
        hookTimeout: 120_000,
        pool: 'forks' as const,
      },
    })),
  },
});
